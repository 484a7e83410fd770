/**
 * The call metadata model on the gateway (docs/protocols.md "Call metadata"):
 * the same handler reads request metadata and sets response headers and
 * trailers; HTTP carries them as headers (trailers as `grpc-trailer-<name>`,
 * `-bin` values base64), the gateway's gRPC transport as real HTTP/2 headers
 * and trailers, WebSocket/TCP/UDP as `headers`/`trailers` envelope fields
 * (request metadata from the envelope's `metadata`), on success and on error.
 */
import { ProtocolGateway, type RequestContext } from 'fw';
import { createGrpcClient, GrpcError, type MetadataRecord } from 'fw/grpc-client';
import { gunzipSync, gzipSync } from 'node:zlib';
import { encodeFrame, FrameType } from 'fw';
import { frame, frames, rawCall } from '../grpc/fixtures/raw-http2';
import { HOST, TcpFrameClient, udpCall, WsClient } from './support/clients';
import { startedGateways } from './support/started-gateways';

function handlers(): Record<string, (request: { fail?: boolean }, context: RequestContext) => Promise<unknown> | AsyncIterable<unknown>> {
  const echo = (context: RequestContext): void => {
    const [text] = context.call.requestMetadata.get('x-in');
    context.call.setHeader('x-out', typeof text === 'string' ? text : 'none');
    const [bytes] = context.call.requestMetadata.get('x-in-bin');
    context.call.setTrailer('x-out-bin', bytes instanceof Uint8Array ? bytes : new Uint8Array([0]));
  };
  return {
    unary: async (request, context) => {
      echo(context);
      if (request.fail === true) throw new Error('boom');
      return { ok: true };
    },
    squeeze: async (_request, context) => {
      context.call.setTrailer('x-compressed', String(context.call.requestCompressed));
      context.call.setCompression('gzip');
      return { text: 'y'.repeat(64) };
    },
    async *series(_request, context) {
      echo(context);
      yield { n: 1 };
      yield { n: 2 };
    },
  };
}

describe('call metadata through the gateway', () => {
  const start = startedGateways();
  let port: number;
  let udpPort: number;

  beforeAll(async () => {
    const g = new ProtocolGateway();
    g.addService('Meta', handlers());
    ({ port, udpPort } = await start(g));
  });

  const metadata = { 'x-in': 'env', 'x-in-bin': Buffer.from([5, 6]).toString('base64') };
  const expected = { headers: { 'x-out': 'env' }, trailers: { 'x-out-bin': 'BQY=' } };

  it('WebSocket: envelope metadata in, headers and trailers fields out (headers on the first reply, trailers on the last)', async () => {
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    const [reply] = await ws.call('u1', 'Meta', 'unary', {}, { metadata });
    expect(reply).toMatchObject({ type: 'response', data: { ok: true }, ...expected });
    const stream = await ws.call('s1', 'Meta', 'series', {}, { metadata });
    expect(stream.map((m) => [m.type, m.headers, m.trailers])).toEqual([
      ['stream', expected.headers, undefined],
      ['stream', undefined, undefined],
      ['stream_end', undefined, expected.trailers],
    ]);
    const [failed] = await ws.call('f1', 'Meta', 'unary', { fail: true }, { metadata });
    expect(failed).toMatchObject({ type: 'error', ...expected });
    ws.close();
  });

  it('TCP and UDP frames: the same fields on type 2 replies', async () => {
    const tcp = await TcpFrameClient.connect(port);
    const frames = await tcp.call('t1', 'Meta', 'unary', {}, { metadata });
    expect(frames.at(-1)).toMatchObject({ type: FrameType.Response, payload: { data: { ok: true }, ...expected } });
    tcp.socket.destroy();
    const reply = await udpCall(udpPort, encodeFrame(FrameType.Request, { id: 'd1', service: 'Meta', method: 'unary', data: {}, metadata }));
    expect(reply).toMatchObject({ type: FrameType.Response, payload: { data: { ok: true }, ...expected } });
  });

  it('HTTP: request headers in (-bin base64), response headers and grpc-trailer-* headers out', async () => {
    const res = await fetch(`http://${HOST}:${port}/api/Meta/unary`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-in': 'hi', 'x-in-bin': Buffer.from([1, 2, 3]).toString('base64') },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { ok: true } });
    expect(res.headers.get('x-out')).toBe('hi');
    expect(res.headers.get('grpc-trailer-x-out-bin')).toBe(Buffer.from([1, 2, 3]).toString('base64'));
  });

  it('HTTP: headers and trailers set before a failure still go out with the error reply', async () => {
    const res = await fetch(`http://${HOST}:${port}/api/Meta/unary`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-in': 'bad' }, body: '{"fail":true}' });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-out')).toBe('bad');
    expect(res.headers.get('grpc-trailer-x-out-bin')).toBe('AA==');
  });

  it('gRPC: request metadata in (-bin as bytes), response headers and trailers out, on success and on error', async () => {
    const client = createGrpcClient({ address: `${HOST}:${port}`, service: { name: 'Meta', methods: { unary: 'none' } } });
    const seen: { headers?: MetadataRecord; trailers?: MetadataRecord } = {};
    const metadata: MetadataRecord = { 'x-in': 'grpc', 'x-in-bin': new Uint8Array([9, 8]) };
    const options = { metadata, deadline: 5000, onHeader: (h: MetadataRecord) => (seen.headers = h), onTrailer: (t: MetadataRecord) => (seen.trailers = t) };
    await expect(client.unary!({}, options)).resolves.toEqual({ ok: true });
    expect(seen.headers?.['x-out']).toBe('grpc');
    expect(Buffer.from(seen.trailers?.['x-out-bin'] as Uint8Array)).toEqual(Buffer.from([9, 8]));
    const error = (await (client.unary!({ fail: true }, options) as Promise<unknown>).then(() => undefined, (e: unknown) => e)) as GrpcError;
    expect(error).toBeInstanceOf(GrpcError);
    expect(Buffer.from(error.metadata['x-out-bin'] as Uint8Array)).toEqual(Buffer.from([9, 8]));
    expect(error.metadata['x-error-code']).toBe('INTERNAL_ERROR');
    client.close();
  });

  it('gRPC: per-call compression and the request compression flag reach the handler on the gateway too', async () => {
    const body = Buffer.from('{}');
    const compressed = await rawCall(`${HOST}:${port}`, '/Meta/squeeze', [frame(gzipSync(body), true)], { headers: { 'grpc-encoding': 'gzip', 'grpc-accept-encoding': 'identity,gzip' } });
    expect(compressed.status).toBe(0);
    expect(compressed.headers['grpc-encoding']).toBe('gzip');
    const [reply] = frames(compressed.body);
    expect(reply?.compressed).toBe(true);
    expect(JSON.parse(gunzipSync(reply!.payload).toString())).toEqual({ text: 'y'.repeat(64) });
    const client = createGrpcClient({ address: `${HOST}:${port}`, service: { name: 'Meta', methods: { squeeze: 'none' } } });
    const trailers: MetadataRecord[] = [];
    await client.squeeze!({}, { onTrailer: (t: MetadataRecord) => trailers.push(t) });
    const gzipClient = createGrpcClient({ address: `${HOST}:${port}`, compression: 'gzip', service: { name: 'Meta', methods: { squeeze: 'none' } } });
    await gzipClient.squeeze!({}, { onTrailer: (t: MetadataRecord) => trailers.push(t) });
    expect(trailers.map((t) => t['x-compressed'])).toEqual(['false', 'true']);
    client.close();
    gzipClient.close();
  });
});
