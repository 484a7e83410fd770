/**
 * The Connect and gRPC-Web wire formats byte by byte (docs/protocols.md),
 * with plain fetch: gRPC-Web text, the 415/405/404 refusals, bad and
 * oversized envelopes, bad timeouts, gzip, CORS preflight and actual
 * responses, inline (JSON-only) services, and HTTP/JSON untouched beside it.
 */
import zlib from 'node:zlib';
import { ProtocolGateway, server } from 'fw';
import { GetUserRequest, User } from '../../generated/user';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { envelope, envelopes as readEnvelopes } from '../support/envelopes';
import { HOST } from './support/clients';
import { startedGateways } from './support/started-gateways';

/** Every envelope of a whole body: nothing may be left over. */
function envelopes(body: Buffer): { flags: number; data: Buffer }[] {
  const { list, consumed } = readEnvelopes(body);
  expect(consumed).toBe(body.length);
  return list;
}

const user = (id: string): User => ({ id, name: `N${id}`, email: '', phone: '', address: undefined, roles: [], createdAt: undefined, updatedAt: undefined });

let tickerStopped: (aborted: boolean) => void = () => undefined;

describe('Connect and gRPC-Web wire', () => {
  const start = startedGateways();
  let base: string;

  beforeAll(async () => {
    const gateway = new ProtocolGateway({ enableUDP: false, connect: { maxMessageSize: 1024, cors: { allowedOrigins: ['http://app.example'], allowedHeaders: ['X-Api-Key'] } } });
    gateway.addService(UserServiceDescriptor, {
      getUser: async (r: GetUserRequest) => {
        if (r.id === 'boom') throw new Error('secret internals');
        return user(r.id);
      },
      listUsers: async function* () {
        yield user('1');
        yield user('2');
      },
    });
    gateway.addService('Echo', {
      echo: async (r: unknown) => r,
      ticks: {
        streaming: 'server',
        handler: async function* (_r: unknown, ctx: { signal: AbortSignal }) {
          try {
            for (let i = 0; i < 10_000 && !ctx.signal.aborted; i++) {
              yield { i };
              await new Promise((r) => setTimeout(r, 5));
            }
          } finally {
            tickerStopped(ctx.signal.aborted);
          }
        },
      },
    });
    const { port } = await start(gateway);
    base = `http://${HOST}:${port}`;
  });

  const post = (path: string, headers: Record<string, string>, body: Uint8Array | string): Promise<Response> =>
    fetch(`${base}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : Buffer.from(body), signal: AbortSignal.timeout(5000) });

  const connectJson = { 'content-type': 'application/json', 'connect-protocol-version': '1' };

  it('Connect unary JSON: the bare message in and out, trace id header', async () => {
    const res = await post('/user.UserService/GetUser', { ...connectJson, 'x-trace-id': 't-1' }, '{"id":"7"}');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-trace-id')).toBe('t-1');
    expect(await res.json()).toMatchObject({ id: '7', name: 'N7' });
  });

  it('Connect unary errors: Connect code and HTTP status, the JSON error body, fw code header; internals hidden', async () => {
    const res = await post('/user.UserService/GetUser', connectJson, '{"id":"boom"}');
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-error-code')).toBe('INTERNAL_ERROR');
    expect(await res.json()).toEqual({ code: 'internal', message: 'Internal server error' });
    const missing = await post('/user.UserService/Nope', connectJson, '{}');
    expect(missing.status).toBe(501);
    expect(missing.headers.get('x-error-code')).toBe('METHOD_NOT_FOUND');
    expect(await missing.json()).toMatchObject({ code: 'unimplemented', message: 'Unknown method: user.UserService.Nope' });
    const unknownService = await post('/user.Nope/GetUser', connectJson, '{}');
    expect(unknownService.headers.get('x-error-code')).toBe('SERVICE_NOT_FOUND');
    expect(await unknownService.json()).toMatchObject({ code: 'unimplemented', message: 'Unknown service: user.Nope' });
  });

  it('Connect unary: bad JSON, unknown fields types and prototype keys are invalid_argument', async () => {
    for (const body of ['{"id":', '[1]', '{"__proto__":{"x":1}}', '']) {
      const res = await post('/user.UserService/GetUser', connectJson, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_argument' });
    }
  });

  it('Connect unary proto, gzip-compressed request', async () => {
    const bytes = zlib.gzipSync(GetUserRequest.encode({ id: 'z' }).finish());
    const res = await post('/user.UserService/GetUser', { 'content-type': 'application/proto', 'connect-protocol-version': '1', 'content-encoding': 'gzip' }, bytes);
    expect(res.status).toBe(200);
    expect(User.decode(new Uint8Array(await res.arrayBuffer()))).toMatchObject({ id: 'z' });
    const br = await post('/user.UserService/GetUser', { ...connectJson, 'content-encoding': 'br' }, '{}');
    expect(br.status).toBe(501);
    expect(await br.json()).toMatchObject({ code: 'unimplemented', message: expect.stringContaining('gzip') });
  });

  it('refusals: unknown codec 415, unary content-type on a stream 415, GET on a method with side effects 405, proto for an inline service 415', async () => {
    expect((await post('/user.UserService/GetUser', { 'content-type': 'application/xml', 'connect-protocol-version': '1' }, '<x/>')).status).toBe(415);
    expect((await post('/user.UserService/ListUsers', connectJson, '{}')).status).toBe(415);
    expect((await post('/user.UserService/GetUser', { 'content-type': 'application/connect+json' }, envelope(0, Buffer.from('{}')))).status).toBe(415);
    for (const method of ['CreateUser', 'ListUsers']) {
      const get = await fetch(`${base}/user.UserService/${method}?encoding=json&message=%7B%7D&connect=v1`, { signal: AbortSignal.timeout(5000) });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
    }
    expect((await post('/Echo/echo', { 'content-type': 'application/proto', 'connect-protocol-version': '1' }, new Uint8Array([10, 1, 65]))).status).toBe(415);
  });

  it('inline services speak Connect JSON', async () => {
    const res = await post('/Echo/echo', connectJson, '{"a":[1,2]}');
    expect(await res.json()).toEqual({ a: [1, 2] });
  });

  it('Connect GET with base64 proto and with percent-encoded JSON', async () => {
    const msg = Buffer.from(GetUserRequest.encode({ id: 'q' }).finish()).toString('base64url');
    const proto = await fetch(`${base}/user.UserService/GetUser?connect=v1&encoding=proto&base64=1&message=${msg}`, { signal: AbortSignal.timeout(5000) });
    expect(proto.headers.get('content-type')).toBe('application/proto');
    expect(User.decode(new Uint8Array(await proto.arrayBuffer()))).toMatchObject({ id: 'q' });
    const json = await fetch(`${base}/user.UserService/GetUser?encoding=json&message=${encodeURIComponent('{"id":"j"}')}`, { signal: AbortSignal.timeout(5000) });
    expect(await json.json()).toMatchObject({ id: 'j' });
  });

  it('Connect streaming: envelopes out, end-of-stream {} last; errors in the end-of-stream message', async () => {
    const res = await post('/user.UserService/ListUsers', { 'content-type': 'application/connect+json' }, envelope(0, Buffer.from('{}')));
    expect(res.status).toBe(200);
    const frames = envelopes(Buffer.from(await res.arrayBuffer()));
    expect(frames.map((f) => f.flags)).toEqual([0, 0, 2]);
    expect(JSON.parse(frames[0]?.data.toString() ?? '')).toMatchObject({ id: '1' });
    expect(frames[2]?.data.toString()).toBe('{}');
    const truncated = await post('/user.UserService/ListUsers', { 'content-type': 'application/connect+json' }, envelope(0, Buffer.from('{}')).subarray(0, 6));
    const end = envelopes(Buffer.from(await truncated.arrayBuffer()));
    expect(end).toHaveLength(1);
    expect(JSON.parse(end[0]?.data.toString() ?? '')).toMatchObject({ error: { code: 'invalid_argument' }, metadata: { 'x-error-code': ['INVALID_ARGUMENT'] } });
  });

  it('limits: an envelope announcing more than maxMessageSize is resource_exhausted; a big unary body too', async () => {
    const header = Buffer.from([0, 0, 0, 0x10, 0]);
    const res = await post('/user.UserService/ListUsers', { 'content-type': 'application/connect+json' }, header);
    const end = envelopes(Buffer.from(await res.arrayBuffer()));
    expect(JSON.parse(end[0]?.data.toString() ?? '')).toMatchObject({ error: { code: 'resource_exhausted' } });
    const big = await post('/user.UserService/GetUser', connectJson, JSON.stringify({ id: 'x'.repeat(2000) }));
    expect(big.status).toBe(429);
    expect(await big.json()).toMatchObject({ code: 'resource_exhausted' });
  });

  it('timeouts: malformed connect-timeout-ms and grpc-timeout are invalid_argument', async () => {
    const bad = await post('/user.UserService/GetUser', { ...connectJson, 'connect-timeout-ms': '12345678901' }, '{"id":"1"}');
    expect(bad.status).toBe(400);
    const web = await post('/user.UserService/GetUser', { 'content-type': 'application/grpc-web+proto', 'grpc-timeout': '10x' }, envelope(0, GetUserRequest.encode({ id: '1' }).finish()));
    expect(new TextDecoder().decode(await web.arrayBuffer())).toContain('grpc-status:3');
  });

  it('gRPC-Web text: base64 body both ways, padded chunks accepted, trailers frame last', async () => {
    const frame = envelope(0, GetUserRequest.encode({ id: 'tx' }).finish());
    // Two padded base64 runs back to back: the request frame split in two.
    const body = frame.subarray(0, 4).toString('base64') + frame.subarray(4).toString('base64');
    const res = await post('/user.UserService/GetUser', { 'content-type': 'application/grpc-web-text', 'x-grpc-web': '1' }, body);
    expect(res.headers.get('content-type')).toBe('application/grpc-web-text');
    const text = await res.text();
    const bytes = Buffer.concat((text.match(/[^=]*=*/g) ?? []).filter((s) => s !== '').map((s) => Buffer.from(s, 'base64')));
    const frames = envelopes(bytes);
    expect(frames.map((f) => f.flags)).toEqual([0, 0x80]);
    expect(User.decode(frames[0]?.data ?? new Uint8Array())).toMatchObject({ id: 'tx' });
    expect(frames[1]?.data.toString()).toContain('grpc-status:0');
    const notBase64 = await post('/user.UserService/GetUser', { 'content-type': 'application/grpc-web-text' }, '!!!!');
    expect(await notBase64.text()).not.toBe('');
  });

  it('gRPC-Web errors: grpc-status, percent-encoded grpc-message and x-error-code in the trailers frame', async () => {
    const res = await post('/user.UserService/Nope', { 'content-type': 'application/grpc-web+proto' }, envelope(0, new Uint8Array()));
    const frames = envelopes(Buffer.from(await res.arrayBuffer()));
    const trailers = frames[frames.length - 1]?.data.toString() ?? '';
    expect(trailers).toContain('grpc-status:12');
    expect(trailers).toContain('grpc-message:Unknown%20');
    expect(trailers).toMatch(/x-error-code:(SERVICE|METHOD)_NOT_FOUND/);
  });

  it('CORS: preflight for an allowed origin lists the Connect/gRPC-Web headers; other origins get no grant', async () => {
    const pre = await fetch(`${base}/user.UserService/GetUser`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,connect-protocol-version,x-api-key' },
      signal: AbortSignal.timeout(5000),
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://app.example');
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET,POST');
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const h of ['connect-protocol-version', 'connect-timeout-ms', 'grpc-timeout', 'x-grpc-web', 'x-user-agent', 'x-api-key']) expect(allowed).toContain(h);
    const actual = await post('/user.UserService/GetUser', { ...connectJson, origin: 'http://app.example' }, '{"id":"1"}');
    expect(actual.headers.get('access-control-allow-origin')).toBe('http://app.example');
    expect((actual.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain('grpc-status');
    const other = await post('/user.UserService/GetUser', { ...connectJson, origin: 'http://evil.example' }, '{"id":"1"}');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('HTTP/JSON is untouched beside it: the default binding and google.api.http routes still answer', async () => {
    const res = await fetch(`${base}/users/5`, { signal: AbortSignal.timeout(5000) });
    expect(await res.json()).toMatchObject({ id: '5' });
    const plain = await post('/api/Echo/echo', { 'content-type': 'application/json' }, '{"b":1}');
    expect(await plain.json()).toEqual({ data: { b: 1 } });
  });

  it('a client that goes away mid-stream aborts the handler, and the gateway keeps serving', async () => {
    const stopped = new Promise<boolean>((resolve) => (tickerStopped = resolve));
    const controller = new AbortController();
    const res = await fetch(`${base}/Echo/ticks`, { method: 'POST', headers: { 'content-type': 'application/connect+json' }, body: new Uint8Array(envelope(0, Buffer.from('{}'))), signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    const guard = new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 5000).unref());
    expect(await Promise.race([stopped, guard])).toBe(true);
    const again = await post('/Echo/echo', connectJson, '{"ok":true}');
    expect(await again.json()).toEqual({ ok: true });
  });

  it('random bodies on every content-type get an answer, never a hang or a crash', async () => {
    const types = ['application/connect+json', 'application/connect+proto', 'application/grpc-web+proto', 'application/grpc-web-text', 'application/grpc-web+json', 'application/proto', 'application/json'];
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 60; i++) {
      const type = types[i % types.length] as string;
      const body = Buffer.alloc(Math.floor(rand() * 64));
      for (let j = 0; j < body.length; j++) body[j] = Math.floor(rand() * 256);
      const path = i % 2 === 0 ? '/user.UserService/GetUser' : '/user.UserService/ListUsers';
      const res = await post(path, { 'content-type': type, 'connect-protocol-version': '1', 'grpc-timeout': '5S' }, body);
      expect(res.status).toBeGreaterThanOrEqual(200);
      await res.arrayBuffer();
    }
    const ok = await post('/user.UserService/GetUser', connectJson, '{"id":"after"}');
    expect(await ok.json()).toMatchObject({ id: 'after' });
  });

  it('configureConnect refuses a bad limit and CORS without origins', () => {
    const g = new ProtocolGateway({});
    expect(() => g.configureConnect({ maxMessageSize: -1 })).toThrow(/maxMessageSize/);
    expect(() => g.configureConnect({ cors: { allowedOrigins: [] } })).toThrow(/allowedOrigins/);
    expect(() => g.configureConnect({ cors: { allowedOrigins: '*', credentials: true } })).toThrow(/credentials/);
  });
});

describe('Connect through gateway.middleware() in an fw app', () => {
  it('serves Connect unary next to the app routes and the HTTP/JSON bindings', async () => {
    const gateway = new ProtocolGateway({});
    gateway.addService('Echo', { echo: async (r: unknown) => r });
    const app = server.http();
    app.get('/hello', (_req, res) => res.json({ hello: 'fw' }));
    app.use('/rpc', gateway.middleware());
    await app.listen(0, HOST);
    const port = app.port;
    try {
      const connect = await fetch(`http://${HOST}:${port}/rpc/Echo/echo`, { method: 'POST', headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' }, body: '{"x":1}', signal: AbortSignal.timeout(5000) });
      expect(await connect.json()).toEqual({ x: 1 });
      const plain = await fetch(`http://${HOST}:${port}/rpc/Echo/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":2}', signal: AbortSignal.timeout(5000) });
      expect(await plain.json()).toEqual({ data: { x: 2 } });
      expect(await (await fetch(`http://${HOST}:${port}/hello`, { signal: AbortSignal.timeout(5000) })).json()).toEqual({ hello: 'fw' });
    } finally {
      await app.close();
      await gateway.close();
    }
  });
});
