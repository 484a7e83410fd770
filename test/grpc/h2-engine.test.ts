/**
 * fw's gRPC server on node:http2 (the default `grpc.engine`): Trailers-Only
 * errors, deadlines and client cancellation reaching `context.signal`,
 * message size limits, request compression and its refusals, percent-encoded
 * status messages, `-bin` metadata both ways, and malformed frames answered
 * with a clear status while the server keeps serving.
 */
import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcError, GrpcStatus } from 'fw/grpc';
import type { RequestContext } from 'fw';
import { frame, rawCall } from './fixtures/raw-http2';
import { listen, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;
const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

describe('the node:http2 gRPC engine', () => {
  let address: string;
  const aborted: { method: string; reason: string }[] = [];
  const waitForAbort = (method: string, context: RequestContext): Promise<Msg> =>
    new Promise((resolve) => {
      const guard = setTimeout(() => resolve({ aborted: false }), 5000);
      context.signal.addEventListener('abort', () => {
        clearTimeout(guard);
        aborted.push({ method, reason: String((context.signal.reason as Error | undefined)?.message ?? context.signal.reason) });
        resolve({ aborted: true });
      });
    });

  beforeAll(async () => {
    const app = newApp()
      .withOptions({ grpc: { maxReceiveMessageLength: 1024, maxSendMessageLength: 2048 } })
      .addService({
        name: 'Engine',
        methods: {
          Echo: { handler: async (request: Msg) => request },
          Fail: { handler: async () => { throw new GrpcError(GrpcStatus.FAILED_PRECONDITION, 'héllo 100% ✓'); } },
          Big: { handler: async (request: Msg) => ({ text: 'x'.repeat(Number(request.size)) }) },
          Sleep: { handler: async (_request: Msg, context: RequestContext) => waitForAbort('Sleep', context) },
          Meta: {
            handler: async (_request: Msg, context: RequestContext) => {
              const [bin] = context.call.requestMetadata.get('x-data-bin');
              context.call.setHeader('x-echo-bin', bin as Buffer);
              context.call.setTrailer('x-trailer', 'done');
              return { bytes: Buffer.isBuffer(bin) ? [...bin] : null };
            },
          },
          Sum: {
            streaming: 'client',
            handler: async (requests: AsyncIterable<Msg>) => {
              let total = 0;
              for await (const r of requests) total += Number(r.n);
              return { total };
            },
          },
        },
      });
    address = await listen(app);
  });
  afterAll(stopAll);

  const stillServing = async (): Promise<void> => {
    const result = await rawCall(address, '/Engine/Echo', [frame(json({ ok: true }))]);
    expect(result.status).toBe(GrpcStatus.OK);
  };

  it('answers an error before any message as Trailers-Only, grpc-message percent-encoded', async () => {
    const result = await rawCall(address, '/Engine/Fail', [frame(json({}))]);
    // rawCall resolves on the response HEADERS when they carry grpc-status: one HEADERS frame, no body.
    expect(result.headers['grpc-status']).toBe(String(GrpcStatus.FAILED_PRECONDITION));
    expect(result.headers['grpc-message']).toBe('h%C3%A9llo 100%25 %E2%9C%93');
    expect(result.message).toBe('héllo 100% ✓');
    expect(result.body.length).toBe(0);
    const client = createGrpcClient<{ fail(r: Msg): Promise<Msg>; close(): void }>({ address, service: { name: 'Engine', methods: { Fail: 'none' } } });
    await expect(client.fail({})).rejects.toMatchObject({ code: GrpcStatus.FAILED_PRECONDITION, message: 'héllo 100% ✓' });
    client.close();
  });

  it('answers unknown methods UNIMPLEMENTED and non-gRPC content types 415, then keeps serving', async () => {
    const unknown = await rawCall(address, '/Engine/Nope', [frame(json({}))]);
    expect(unknown.status).toBe(GrpcStatus.UNIMPLEMENTED);
    expect(unknown.message).toBe('Unknown method: Engine.Nope');
    expect(unknown.headers['x-error-code']).toBe('METHOD_NOT_FOUND');
    const otherService = await rawCall(address, '/Nobody/Nope', [frame(json({}))]);
    expect(otherService.message).toBe('Unknown service: Nobody');
    expect(otherService.headers['x-error-code']).toBe('SERVICE_NOT_FOUND');
    const plain = await rawCall(address, '/Engine/Echo', [json({})], { headers: { 'content-type': 'application/json' } });
    expect(plain.headers[':status']).toBe(415);
    await stillServing();
  });

  it('a deadline aborts the handler signal and the caller gets DEADLINE_EXCEEDED', async () => {
    const result = await rawCall(address, '/Engine/Sleep', [frame(json({}))], { headers: { 'grpc-timeout': '100m' } });
    expect(result.status).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    expect(aborted.some((a) => a.method === 'Sleep')).toBe(true);
    const bad = await rawCall(address, '/Engine/Echo', [frame(json({}))], { headers: { 'grpc-timeout': 'soon' } });
    expect(bad.status).toBe(GrpcStatus.INTERNAL);
    expect(bad.message).toMatch(/Invalid grpc-timeout value "soon"/);
  });

  it('a client cancel (RST_STREAM CANCEL) aborts the handler signal', async () => {
    aborted.length = 0;
    const client = new grpc.Client(address, grpc.credentials.createInsecure());
    const call = client.makeUnaryRequest('/Engine/Sleep', json, (b: Buffer) => JSON.parse(b.toString()), {}, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    call.cancel();
    for (let i = 0; i < 100 && aborted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(aborted).toEqual([{ method: 'Sleep', reason: expect.stringMatching(/cancel/i) }]);
    client.close();
  });

  it('refuses messages over maxReceiveMessageLength and responses over maxSendMessageLength with RESOURCE_EXHAUSTED', async () => {
    const large = await rawCall(address, '/Engine/Echo', [frame(json({ text: 'y'.repeat(2000) }))]);
    expect(large.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(large.message).toMatch(/Received message larger than max \(\d+ vs\. 1024\)/);
    const big = await rawCall(address, '/Engine/Big', [frame(json({ size: 4000 }))]);
    expect(big.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(big.message).toMatch(/Sent message larger than max \(\d+ vs\. 2048\)/);
    // A gzip bomb: small on the wire, over the limit once inflated.
    const bomb = await rawCall(address, '/Engine/Echo', [frame(gzipSync(json({ text: 'z'.repeat(50_000) })), true)], { headers: { 'grpc-encoding': 'gzip' } });
    expect(bomb.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    await stillServing();
  });

  it('reads gzip requests, and refuses unknown encodings, unannounced and invalid compressed messages', async () => {
    const gzipped = await rawCall(address, '/Engine/Echo', [frame(gzipSync(json({ a: 1 })), true)], { headers: { 'grpc-encoding': 'gzip' } });
    expect(gzipped.status).toBe(GrpcStatus.OK);
    const brotli = await rawCall(address, '/Engine/Echo', [frame(json({}), true)], { headers: { 'grpc-encoding': 'br' } });
    expect(brotli.status).toBe(GrpcStatus.UNIMPLEMENTED);
    expect(brotli.headers['grpc-accept-encoding']).toBe('identity,gzip');
    const unannounced = await rawCall(address, '/Engine/Echo', [frame(gzipSync(json({})), true)]);
    expect(unannounced.status).toBe(GrpcStatus.INTERNAL);
    expect(unannounced.message).toMatch(/without grpc-encoding/);
    const invalid = await rawCall(address, '/Engine/Echo', [frame(Buffer.from('not gzip'), true)], { headers: { 'grpc-encoding': 'gzip' } });
    expect(invalid.status).toBe(GrpcStatus.INTERNAL);
    expect(invalid.message).toMatch(/not valid gzip/);
    await stillServing();
  });

  it('carries -bin metadata both ways (base64 on the wire) and trailers after the message', async () => {
    const session = http2.connect(`http://${address}`);
    try {
      const request = session.request({ ':method': 'POST', ':path': '/Engine/Meta', 'content-type': 'application/grpc', te: 'trailers', 'x-data-bin': Buffer.from([0, 1, 255]).toString('base64') });
      const got = await new Promise<{ headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        let headers: http2.IncomingHttpHeaders = {};
        const body: Buffer[] = [];
        request.on('response', (h) => (headers = h));
        request.on('data', (c: Buffer) => body.push(c));
        request.on('trailers', (trailers) => resolve({ headers, trailers, body: Buffer.concat(body) }));
        request.on('error', reject);
        request.end(frame(json({})));
      });
      expect(Buffer.from(String(got.headers['x-echo-bin']), 'base64')).toEqual(Buffer.from([0, 1, 255]));
      expect(got.trailers).toMatchObject({ 'grpc-status': '0', 'x-trailer': 'done' });
      expect(JSON.parse(got.body.subarray(5).toString())).toEqual({ bytes: [0, 1, 255] });
    } finally {
      session.close();
    }
  });

  it('malformed frames get a clear error status, never a crash', async () => {
    const truncated = await rawCall(address, '/Engine/Echo', [frame(json({ a: 1 })).subarray(0, 8)]);
    expect(truncated.status).toBe(GrpcStatus.INTERNAL);
    expect(truncated.message).toMatch(/truncated length-prefixed frame/);
    const shortPrefix = await rawCall(address, '/Engine/Echo', [Buffer.from([0, 0, 0])]);
    expect(shortPrefix.status).toBe(GrpcStatus.INTERNAL);
    const empty = await rawCall(address, '/Engine/Echo', []);
    expect(empty.status).toBe(GrpcStatus.INTERNAL);
    expect(empty.message).toMatch(/no message/);
    const two = await rawCall(address, '/Engine/Echo', [frame(json({})), frame(json({}))]);
    expect(two.status).toBe(GrpcStatus.INTERNAL);
    expect(two.message).toMatch(/more than one message/);
    const streamTruncated = await rawCall(address, '/Engine/Sum', [frame(json({ n: 1 })), frame(json({ n: 2 })).subarray(0, 6)]);
    expect(streamTruncated.status).not.toBe(GrpcStatus.OK);
    const streamTooLarge = await rawCall(address, '/Engine/Sum', [frame(json({ n: 1 })), frame(json({ text: 'y'.repeat(2000) }))]);
    expect(streamTooLarge.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    const ok = await rawCall(address, '/Engine/Sum', [frame(json({ n: 1 })), frame(json({ n: 2 }))]);
    expect(ok.status).toBe(GrpcStatus.OK);
    await stillServing();
  });

  // A unary body in one DATA chunk is read in place; any other shape goes through the framing reader.
  it('reads a unary message however its DATA frames split it, and refuses an oversized prefix before the body ends', async () => {
    const message = frame(json({ text: 'split me', n: 7 }));
    for (const cuts of [[1], [3, 5], [5], [6, 9], [message.length - 1]]) {
      const result = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
        const session = http2.connect(`http://${address}`);
        session.on('error', reject);
        const request = session.request({ ':method': 'POST', ':path': '/Engine/Echo', 'content-type': 'application/grpc', te: 'trailers' });
        const body: Buffer[] = [];
        request.on('data', (chunk: Buffer) => body.push(chunk));
        request.on('trailers', (trailers) => {
          session.close();
          resolve({ status: Number(trailers['grpc-status']), body: Buffer.concat(body) });
        });
        request.on('error', reject);
        // Each piece leaves in its own DATA frame: the next is written once the previous is flushed.
        const pieces = [0, ...cuts, message.length].slice(1).map((end, i, ends) => message.subarray(i === 0 ? 0 : (ends[i - 1] as number), end));
        const writeNext = (i: number): void => {
          if (i === pieces.length) {
            request.end();
            return;
          }
          request.write(pieces[i], () => setTimeout(() => writeNext(i + 1), 5));
        };
        writeNext(0);
      });
      expect(result.status).toBe(GrpcStatus.OK);
      expect(JSON.parse(result.body.subarray(5).toString())).toEqual({ text: 'split me', n: 7 });
    }
    // Only the 5-byte prefix, claiming 1 MiB, and the body left open: refused at once, not at END_STREAM.
    const prefix = Buffer.from([0, 0, 0x10, 0, 0]);
    const refused = await rawCall(address, '/Engine/Echo', [prefix], { end: false });
    expect(refused.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    await stillServing();
  });
});

describe('grpc.engine', () => {
  it('refuses an unknown engine with a RangeError naming the option', () => {
    expect(() => newApp().withOptions({ grpc: { engine: 'h3' as never } })).toThrow(/grpc\.engine must be 'node-http2' or 'grpc-js', got h3/);
  });
});

describe('node:http2 engine connection policy', () => {
  afterAll(stopAll);

  const echoApp = (grpcOptions: Record<string, number>): Promise<string> =>
    listen(newApp().withOptions({ grpc: grpcOptions }).addService({ name: 'Echo', methods: { Echo: { handler: async (request: Msg) => request } } }));

  it('retires a connection after maxConnectionAge (GOAWAY)', async () => {
    const address = await echoApp({ maxConnectionAge: 200, maxConnectionAgeGrace: 2000 });
    const session = http2.connect(`http://${address}`);
    session.on('error', () => undefined);
    const goaway = new Promise<number>((resolve) => session.once('goaway', (code: number) => resolve(code)));
    const guard = new Promise<string>((resolve) => setTimeout(() => resolve('no goaway'), 5000));
    expect(await Promise.race([goaway, guard])).toBe(http2.constants.NGHTTP2_NO_ERROR);
    session.destroy();
  });

  it('pings each connection every keepaliveTimeMs', async () => {
    const address = await echoApp({ keepaliveTimeMs: 100, keepaliveTimeoutMs: 1000 });
    const session = http2.connect(`http://${address}`);
    session.on('error', () => undefined);
    const pinged = new Promise<string>((resolve) => session.once('ping', () => resolve('pinged')));
    const guard = new Promise<string>((resolve) => setTimeout(() => resolve('no ping'), 5000));
    expect(await Promise.race([pinged, guard])).toBe('pinged');
    session.destroy();
  });

  it('sends away (ENHANCE_YOUR_CALM) a client pinging more often than http2MinTimeBetweenPingsMs allows', async () => {
    const address = await echoApp({ http2MinTimeBetweenPingsMs: 60_000, http2MaxPingStrikes: 1 });
    const session = http2.connect(`http://${address}`);
    session.on('error', () => undefined);
    const goaway = new Promise<number>((resolve) => session.once('goaway', (code: number) => resolve(code)));
    await new Promise<void>((resolve) => session.once('connect', () => resolve()));
    for (let i = 0; i < 4 && !session.destroyed; i++) {
      session.ping(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const guard = new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5000));
    expect(await Promise.race([goaway, guard])).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    session.destroy();
  });
});

describe('node:http2 engine under random input', () => {
  afterAll(stopAll);

  it('answers 200 streams of random frames, headers, encodings, timeouts and cancels with statuses, and keeps serving', async () => {
    const address = await listen(
      newApp()
        .withOptions({ grpc: { maxReceiveMessageLength: 4096, requestTimeout: 500 } })
        .addService({
          name: 'Fuzz',
          methods: {
            Echo: { handler: async (request: Msg) => request },
            Count: { streaming: 'client', handler: async (requests: AsyncIterable<Msg>) => {
              let n = 0;
              for await (const _ of requests) n++;
              return { n };
            } },
            Chat: { streaming: 'bidirectional', handler: async function* (requests: AsyncIterable<Msg>) {
              for await (const r of requests) yield r;
            } },
          },
        }),
    );
    let seed = 18;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => next(256)));
    const outcomes = new Map<string, number>();
    const session = http2.connect(`http://${address}`);
    session.on('error', () => undefined);
    for (let i = 0; i < 200; i++) {
      const headers: Record<string, string> = { ':method': 'POST', ':path': ['/Fuzz/Echo', '/Fuzz/Count', '/Fuzz/Chat', '/Fuzz/None'][next(4)] as string, 'content-type': 'application/grpc', te: 'trailers' };
      const encoding = [undefined, 'gzip', 'identity', 'br'][next(4)];
      if (encoding !== undefined) headers['grpc-encoding'] = encoding;
      if (next(5) === 0) headers['grpc-timeout'] = ['1m', '5S', 'x', '123456789S'][next(4)] as string;
      const request = session.request(headers);
      const outcome = await new Promise<string>((resolve) => {
        const guard = setTimeout(() => resolve('no answer'), 5000);
        const done = (value: string): void => {
          clearTimeout(guard);
          resolve(value);
        };
        request.on('response', (h) => h['grpc-status'] !== undefined && done(`status ${String(h['grpc-status'])}`));
        request.on('trailers', (h) => done(`status ${String(h['grpc-status'])}`));
        request.on('error', () => done('reset'));
        request.on('close', () => done('closed'));
        request.on('data', () => undefined);
        for (let c = next(4); c >= 0; c--) {
          const body = bytes(next(40));
          if (next(2) === 0) request.write(body);
          else request.write(Buffer.concat([Buffer.from([next(3), 0, 0, next(2) === 0 ? 0x40 : 0, body.length]), body]));
        }
        const end = next(10);
        if (end === 0) request.close(http2.constants.NGHTTP2_CANCEL);
        else if (end !== 1) request.end();
        // end === 1 leaves the request open: requestTimeout (500 ms) or the handler's wait decide.
      });
      outcomes.set(outcome.replace(/status \d+/, 'status'), (outcomes.get(outcome.replace(/status \d+/, 'status')) ?? 0) + 1);
      if (!request.closed) request.close(http2.constants.NGHTTP2_CANCEL);
    }
    session.close();
    expect([...outcomes.keys()].every((k) => ['status', 'closed', 'reset'].includes(k))).toBe(true);
    expect(outcomes.get('status') ?? 0).toBeGreaterThan(100);
    const alive = await rawCall(address, '/Fuzz/Echo', [frame(json({ still: 'here' }))]);
    expect(alive.status).toBe(GrpcStatus.OK);
  }, 120_000);
});
