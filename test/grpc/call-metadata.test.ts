/**
 * Metadata and compression per call (docs/grpc.md "Metadata and compression
 * per call"): handlers read request metadata (text, and `-bin` as bytes), send
 * response headers once and trailers on success and on error; fw's client
 * sees both on every call kind; invalid metadata fails the call with INTERNAL
 * and a logged reason (never a hang); per-call response compression and the
 * request's compression flag, observed on the wire with a raw HTTP/2 client.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RequestContext } from 'fw';
import { GrpcError, GrpcStatus, InvalidMetadataError, type MetadataRecord } from 'fw/grpc';
import { createGrpcClient } from 'fw/grpc-client';
import { createGrpcTestClient } from 'fw/testing';
import { frame, frames, rawCall } from './fixtures/raw-http2';
import { collect, fromArray, listen, newApp, stopAll } from './fixtures/servers';

type Msg = { text?: string; fail?: boolean; badBin?: boolean; compress?: 'gzip' | 'identity' };

/** Echoes the request metadata back: `x-in` as a header, `x-in-bin` as a trailer; `x-count` counts messages. */
function echo(context: RequestContext): void {
  const [text] = context.call.requestMetadata.get('x-in');
  if (typeof text === 'string') context.call.setHeader('x-out', text);
  const [bytes] = context.call.requestMetadata.get('x-in-bin');
  if (bytes instanceof Uint8Array) context.call.setTrailer('x-out-bin', bytes);
}

function finish(request: Msg, context: RequestContext): Msg {
  if (request.badBin === true) throw new GrpcError(GrpcStatus.NOT_FOUND, 'gone', { 'x-detail-bin': 'not bytes' } as unknown as MetadataRecord);
  if (request.fail === true) throw new GrpcError(GrpcStatus.NOT_FOUND, 'gone', { 'x-reason': 'missing', 'x-reason-bin': new Uint8Array([7]) });
  if (request.compress !== undefined) context.call.setCompression(request.compress);
  context.call.setTrailer('x-compressed', String(context.call.requestCompressed));
  return { text: request.text ?? '' };
}

const unexpected: unknown[] = [];
let address: string;
/** The same service on the grpc-js fallback engine: per-call compression must reach grpc-js's stream too. */
let grpcJsAddress: string;
let app: ReturnType<typeof newApp>;

function metaApp(): ReturnType<typeof newApp> {
  return newApp()
    .onUnexpectedError((error) => unexpected.push(error))
    .addService({
      name: 'Meta',
      methods: {
        Unary: { handler: async (request: Msg, context: RequestContext) => (echo(context), finish(request, context)) },
        Server: {
          streaming: 'server',
          async *handler(request: Msg, context: RequestContext) {
            echo(context);
            yield { text: 'one' };
            yield finish(request, context);
          },
        },
        Client: {
          streaming: 'client',
          async handler(requests: AsyncIterable<Msg>, context: RequestContext) {
            echo(context);
            let last: Msg = {};
            for await (const request of requests) last = request;
            return finish(last, context);
          },
        },
        Bidi: {
          streaming: 'bidirectional',
          async *handler(requests: AsyncIterable<Msg>, context: RequestContext) {
            echo(context);
            context.call.sendHeader();
            for await (const request of requests) yield finish(request, context);
          },
        },
        LateHeader: {
          handler: async (_request: Msg, context: RequestContext) => {
            context.call.sendHeader();
            context.call.setHeader('x-late', 'too late');
            return {};
          },
        },
        Padding: { handler: async (request: { size: number; compress?: 'gzip' | 'identity' }, context: RequestContext) => {
          if (request.compress !== undefined) context.call.setCompression(request.compress);
          return { text: 'x'.repeat(request.size) };
        } },
      },
    });
}

beforeAll(async () => {
  app = metaApp();
  address = await listen(app);
  grpcJsAddress = await listen(metaApp().withOptions({ grpc: { engine: 'grpc-js' } }));
});
afterAll(stopAll);
beforeEach(() => unexpected.splice(0));

const client = (at = address) =>
  createGrpcClient({ address: at, service: { name: 'Meta', methods: { Unary: 'none', Server: 'server', Client: 'client', Bidi: 'bidirectional', LateHeader: 'none' } } });

const sent: MetadataRecord = { 'x-in': 'hello', 'x-in-bin': new Uint8Array([0xab, 0x00, 0xff]) };

function capture(): { options: { metadata: MetadataRecord; deadline: number; onHeader: (h: MetadataRecord) => void; onTrailer: (t: MetadataRecord) => void }; seen: { headers?: MetadataRecord; trailers?: MetadataRecord } } {
  const seen: { headers?: MetadataRecord; trailers?: MetadataRecord } = {};
  return { seen, options: { metadata: sent, deadline: 5000, onHeader: (h) => (seen.headers = h), onTrailer: (t) => (seen.trailers = t) } };
}

function expectEchoed(seen: { headers?: MetadataRecord; trailers?: MetadataRecord }): void {
  expect(seen.headers?.['x-out']).toBe('hello');
  expect(Buffer.from(seen.trailers?.['x-out-bin'] as Uint8Array)).toEqual(Buffer.from([0xab, 0x00, 0xff]));
}

describe('headers and trailers on every call kind', () => {
  it('unary', async () => {
    const c = client();
    const { options, seen } = capture();
    await expect(c.unary!({ text: 'a' }, options)).resolves.toEqual({ text: 'a' });
    expectEchoed(seen);
    expect(seen.trailers?.['x-compressed']).toBe('false');
    c.close();
  });

  it('server streaming', async () => {
    const c = client();
    const { options, seen } = capture();
    expect(await collect(c.server!({ text: 'b' }, options) as AsyncIterable<Msg>)).toEqual([{ text: 'one' }, { text: 'b' }]);
    expectEchoed(seen);
    c.close();
  });

  it('client streaming', async () => {
    const c = client();
    const { options, seen } = capture();
    await expect(c.client!(fromArray([{ text: 'c1' }, { text: 'c2' }]), options)).resolves.toEqual({ text: 'c2' });
    expectEchoed(seen);
    c.close();
  });

  it('bidirectional, with the headers sent before any message', async () => {
    const c = client();
    const { options, seen } = capture();
    expect(await collect(c.bidi!(fromArray([{ text: 'd' }]), options) as AsyncIterable<Msg>)).toEqual([{ text: 'd' }]);
    expectEchoed(seen);
    c.close();
  });

  it('trailers set by the handler and by the GrpcError both arrive with an error status', async () => {
    const c = client();
    const { options, seen } = capture();
    const error = (await (c.unary!({ fail: true }, options) as Promise<unknown>).then(() => undefined, (e: unknown) => e)) as GrpcError;
    expect(error).toBeInstanceOf(GrpcError);
    expect(error.code).toBe(GrpcStatus.NOT_FOUND);
    expect(error.metadata['x-reason']).toBe('missing');
    expect(Buffer.from(error.metadata['x-reason-bin'] as Uint8Array)).toEqual(Buffer.from([7]));
    expect(Buffer.from(error.metadata['x-out-bin'] as Uint8Array)).toEqual(Buffer.from([0xab, 0x00, 0xff]));
    expect(seen.headers?.['x-out']).toBe('hello');
    expect(seen.trailers?.['x-reason']).toBe('missing');
    c.close();
  });
});

describe('the in-process test client', () => {
  it('reads request metadata and hands headers and trailers to the same callbacks', async () => {
    const c = createGrpcTestClient<Record<string, (r: Msg, o?: object) => Promise<Msg>>>('Meta', { app });
    const { options, seen } = capture();
    await expect(c.Unary!({ text: 't' }, options)).resolves.toEqual({ text: 't' });
    expectEchoed(seen);
    const failed = capture();
    await expect(c.Unary!({ fail: true }, failed.options)).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND, metadata: { 'x-reason': 'missing' } });
    expect(failed.seen.trailers?.['x-reason']).toBe('missing');
    await expect(c.Unary!({ badBin: true }, {})).rejects.toMatchObject({ code: GrpcStatus.INTERNAL });
    expect(unexpected.some((e) => e instanceof InvalidMetadataError)).toBe(true);
  });
});

describe('invalid metadata', () => {
  it('a GrpcError with a string on a -bin key fails with INTERNAL and a logged reason, not a hang', async () => {
    for (const method of ['Unary', 'Server'] as const) {
      const c = client();
      const call = method === 'Unary' ? c.unary!({ badBin: true }, { deadline: 5000 }) : collect(c.server!({ badBin: true }, { deadline: 5000 }) as AsyncIterable<Msg>);
      await expect(call).rejects.toMatchObject({ code: GrpcStatus.INTERNAL, message: 'Internal server error' });
      c.close();
    }
    expect(unexpected).toHaveLength(2);
    expect(unexpected[0]).toBeInstanceOf(InvalidMetadataError);
    expect(String(unexpected[0])).toMatch(/x-detail-bin ends in -bin and needs bytes/);
  });

  it('a header set after the headers went out fails the call with INTERNAL, logged', async () => {
    const c = client();
    await expect(c.lateHeader!({}, { deadline: 5000 })).rejects.toMatchObject({ code: GrpcStatus.INTERNAL });
    expect(String(unexpected[0])).toMatch(/setHeader\(x-late\): the response headers were already sent/);
    c.close();
  });

  it('the client refuses a string on a -bin key before sending anything', async () => {
    const c = client();
    const bad = { 'x-in-bin': 'text' } as unknown as MetadataRecord;
    await expect(c.unary!({}, { metadata: bad })).rejects.toThrow(/x-in-bin ends in -bin and needs bytes/);
    expect(() => c.server!({}, { metadata: { 'Bad Key': 'x' } })).toThrow(/is not lowercase letters/);
    c.close();
  });
});

describe.each([
  ['node:http2', () => address],
  ['grpc-js', () => grpcJsAddress],
])('compression per call, on the wire (%s engine)', (_engine, addressOf) => {
  const acceptGzip = { 'grpc-accept-encoding': 'identity,gzip' };
  const request = (value: unknown): Buffer => frame(Buffer.from(JSON.stringify(value)));

  it("setCompression('gzip') compresses every message of the call when the caller accepts gzip", async () => {
    const result = await rawCall(addressOf(), '/Meta/Padding', [request({ size: 10, compress: 'gzip' })], { headers: acceptGzip });
    expect(result.status).toBe(0);
    expect(result.headers['grpc-encoding']).toBe('gzip');
    const [only] = frames(result.body);
    expect(only?.compressed).toBe(true);
    expect(JSON.parse(gunzipSync(only!.payload).toString())).toEqual({ text: 'x'.repeat(10) });
  });

  it('stays uncompressed when the caller does not accept gzip, or the handler says identity', async () => {
    const refused = await rawCall(addressOf(), '/Meta/Padding', [request({ size: 10, compress: 'gzip' })], { headers: { 'grpc-accept-encoding': 'identity' } });
    expect(frames(refused.body)[0]?.compressed).toBe(false);
    const identity = await rawCall(addressOf(), '/Meta/Padding', [request({ size: 5000, compress: 'identity' })], { headers: acceptGzip });
    expect(identity.headers['grpc-encoding']).not.toBe('gzip');
    expect(frames(identity.body)[0]?.compressed).toBe(false);
  });

  it("tells the handler whether the request arrived compressed", async () => {
    const compressed = await rawCall(addressOf(), '/Meta/Unary', [frame(gzipSync(Buffer.from('{"text":"z"}')), true)], { headers: { 'grpc-encoding': 'gzip' } });
    expect(compressed.status).toBe(0);
    const plain = await rawCall(addressOf(), '/Meta/Unary', [request({ text: 'z' })]);
    expect(plain.status).toBe(0);
    const c = client(addressOf());
    const trailers: MetadataRecord[] = [];
    await c.unary!({ text: 'z' }, { onTrailer: (t) => trailers.push(t) });
    const gzipClient = createGrpcClient({ address: addressOf(), compression: 'gzip', service: { name: 'Meta', methods: { Unary: 'none' } } });
    await gzipClient.unary!({ text: 'z' }, { onTrailer: (t) => trailers.push(t) });
    expect(trailers.map((t) => t['x-compressed'])).toEqual(['false', 'true']);
    c.close();
    gzipClient.close();
  });
});
