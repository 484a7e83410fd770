/**
 * The call metadata model on the gateway (docs/protocols.md "Call metadata"):
 * the same handler reads request metadata and sets response headers and
 * trailers; HTTP carries them as headers (trailers as `grpc-trailer-<name>`,
 * `-bin` values base64), the gateway's gRPC transport as real HTTP/2 headers
 * and trailers, on success and on error.
 */
import { ProtocolGateway, type RequestContext } from 'fw';
import { createGrpcClient, GrpcError, type MetadataRecord } from 'fw/grpc-client';
import { HOST } from './support/clients';
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
  };
}

describe('call metadata through the gateway', () => {
  const start = startedGateways();
  let port: number;

  beforeAll(async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('Meta', handlers());
    port = (await start(g)).port;
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
});
