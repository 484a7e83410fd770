/**
 * The fallback engine (`grpc.engine: 'grpc-js'`), smoke-tested on both
 * servers that offer it: `server.grpc()` (the four call kinds, a GrpcError,
 * gzip, health and reflection) and the gateway's one port (gRPC beside
 * Connect over HTTP/2, through the foreign-streams hook, and reflection),
 * and its request timeout (the same pending-requests list as fw's engine).
 * Where grpc-js alone would answer otherwise, it answers as fw's engine
 * does: undecodable protobuf is INVALID_ARGUMENT for every call kind, and a
 * stream open past close()'s timeout ends with UNAVAILABLE. The whole case
 * table runs on it too (test/conformance).
 */
import http2 from 'node:http2';
import { ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcStatus, type ProtoDefinition } from 'fw/grpc';
import { grpcJsonClient, grpcUnary, HOST, reflectedServices } from '../gateway/support/clients';
import { frame, rawCall } from './fixtures/raw-http2';
import { loadUserProto, protoUserService, type ProtoUserClient } from './fixtures/proto-user-service';
import { collect, fromArray, listen, newApp, stopAll } from './fixtures/servers';

type Obj = Record<string, unknown>;

describe("server.grpc() on grpc.engine: 'grpc-js'", () => {
  let client: ProtoUserClient;
  let address: string;

  beforeAll(async () => {
    const proto = loadUserProto();
    const app = newApp().withOptions({ grpc: { engine: 'grpc-js', compression: 'gzip', compressionOptions: { threshold: 0 }, reflection: true } }).addService(protoUserService(proto));
    address = await listen(app);
    client = createGrpcClient<ProtoUserClient>({ address, credentials: 'insecure', service: (proto.user as ProtoDefinition).UserService as ProtoDefinition });
  });
  afterAll(async () => {
    client.close();
    await stopAll();
  });

  it('serves the four call kinds and a GrpcError', async () => {
    const created = await client.createUser({ name: 'Ada', email: 'ada@example.com' });
    expect(await client.getUser({ id: created.id })).toMatchObject({ name: 'Ada' });
    expect((await collect(client.listUsers({}))).length).toBeGreaterThan(0);
    expect(await client.createMultipleUsers(fromArray([{ name: 'B', email: 'b@example.com' }]))).toMatchObject({ count: 1 });
    const chat = await collect(client.chatWithUsers(fromArray([{ userId: 'u', message: 'hi' }])));
    expect(chat.map((m) => m.message)).toEqual(['welcome', 'echo: hi']);
    await expect(collect(client.chatWithUsers(fromArray([{ userId: 'u', message: 'fail' }])))).rejects.toMatchObject({ code: GrpcStatus.FAILED_PRECONDITION });
  });

  it('answers health checks and reflection, and grpc-js (not fw) answers unknown methods', async () => {
    const health = createGrpcClient<{ check(r: Obj): Promise<Obj>; close(): void }>({ address, service: { name: 'grpc.health.v1.Health', methods: { Check: 'none' } } });
    // The JSON test client cannot read protobuf health replies; the status of the call is what matters here.
    await health.check({}).catch((error: { code?: number }) => expect(error.code).not.toBe(GrpcStatus.UNIMPLEMENTED));
    health.close();
    const [host, port] = address.split(':') as [string, string];
    expect(host).toBe(HOST);
    expect(await reflectedServices(Number(port))).toEqual(expect.arrayContaining(['user.UserService']));
    // grpc-js's own wording for an unknown method (fw's engine says "No method … is served here").
    const unknown = await rawCall(address, '/nope.Nope/Nope', [frame(Buffer.alloc(0))]);
    expect(unknown.status).toBe(GrpcStatus.UNIMPLEMENTED);
    expect(unknown.message).toMatch(/does not implement the method/);
  });
});

describe("grpc.engine: 'grpc-js' answers as fw's engine does", () => {
  afterAll(stopAll);

  it('refuses protobuf that does not decode with INVALID_ARGUMENT on every call kind, and keeps serving', async () => {
    const app = newApp().withOptions({ grpc: { engine: 'grpc-js' } }).addService(protoUserService(loadUserProto()));
    const address = await listen(app);
    // A varint tag cut short: no protobuf parser accepts it (grpc-js alone answers INTERNAL).
    const garbage = frame(Buffer.from([0xff, 0xff]));
    for (const method of ['GetUser', 'ListUsers', 'CreateMultipleUsers', 'ChatWithUsers']) {
      const result = await rawCall(address, `/user.UserService/${method}`, [garbage]);
      expect([method, result.status, result.message]).toEqual([method, GrpcStatus.INVALID_ARGUMENT, expect.stringMatching(/^Error deserializing request/)]);
    }
    const client = createGrpcClient<ProtoUserClient>({ address, service: (loadUserProto().user as ProtoDefinition).UserService as ProtoDefinition });
    try {
      expect(await client.createUser({ name: 'Ada', email: 'ada@example.com' })).toMatchObject({ name: 'Ada' });
    } finally {
      client.close();
    }
  });

  it('ends a stream open past close()\'s timeout with UNAVAILABLE and aborts its handler\'s signal', async () => {
    const signals: AbortSignal[] = [];
    const app = newApp().withOptions({ grpc: { engine: 'grpc-js' } }).addService({
      name: 'Drain',
      methods: {
        Ticks: {
          streaming: 'server',
          handler: async function* (_request: Obj, context: { signal: AbortSignal }) {
            signals.push(context.signal);
            // Bounded: 300 ticks of 10 ms, far past the shutdown timeout; it never looks at its signal.
            for (let i = 0; i < 300; i++) {
              yield { i };
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          },
        },
      },
    });
    const address = await listen(app);
    const client = createGrpcClient<{ ticks(r: Obj): AsyncIterable<Obj>; close(): void }>({ address, service: { name: 'Drain', methods: { Ticks: 'server' } } });
    const items: Obj[] = [];
    let closing: Promise<void> | undefined;
    const failure = await (async () => {
      for await (const item of client.ticks({})) {
        items.push(item);
        closing ??= app.close({ timeoutMs: 100 });
      }
      return undefined;
    })().catch((error: unknown) => error);
    await closing;
    client.close();
    expect(failure).toMatchObject({ code: GrpcStatus.UNAVAILABLE, message: 'The server shut down before the stream ended; retry on another instance', metadata: { 'x-error-code': 'UNAVAILABLE' } });
    expect(items.length).toBeGreaterThan(0);
    expect(signals.map((signal) => signal.aborted)).toEqual([true]);
  });
});

describe("requestTimeout on grpc.engine: 'grpc-js'", () => {
  afterAll(stopAll);

  it('resets a unary request not complete within requestTimeout (RST_STREAM CANCEL); a complete one is served', async () => {
    const app = newApp().withOptions({ grpc: { engine: 'grpc-js', requestTimeout: 200 } }).addService({ name: 'Slow', methods: { Echo: { handler: async (r: Obj) => r } } });
    const address = await listen(app);
    const session = http2.connect(`http://${address}`);
    try {
      const stream = session.request({ ':method': 'POST', ':path': '/Slow/Echo', 'content-type': 'application/grpc', te: 'trailers' });
      stream.on('error', () => undefined);
      // Half a message, and the body left open.
      stream.write(frame(Buffer.from(JSON.stringify({ a: 1 }))).subarray(0, 7));
      const rstCode = await new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)));
      expect(rstCode).toBe(http2.constants.NGHTTP2_CANCEL);
      const whole = await rawCall(address, '/Slow/Echo', [frame(Buffer.from(JSON.stringify({ a: 2 })))]);
      expect(whole.status).toBe(GrpcStatus.OK);
    } finally {
      session.close();
    }
  });
});

describe("the gateway on grpc.engine: 'grpc-js'", () => {
  let gateway: ProtocolGateway;
  let port: number;

  beforeAll(async () => {
    gateway = new ProtocolGateway({ enableUDP: false, grpc: { engine: 'grpc-js', reflection: true } });
    gateway.addService('Echo', { echo: async (request: unknown) => request });
    gateway.addService(UserServiceDescriptor, { getUser: async () => ({ id: '1', name: 'Ada', email: '', phone: '', address: undefined, roles: [], createdAt: undefined, updatedAt: undefined }) });
    port = (await gateway.listen(0, HOST)).port as number;
  });
  afterAll(() => gateway.close());

  it('serves gRPC and Connect over HTTP/2 on the one port', async () => {
    const client = grpcJsonClient(port, 'Echo', { echo: 'none' });
    try {
      expect((await grpcUnary(client, 'echo', { a: 1 })).value).toEqual({ a: 1 });
    } finally {
      client.close();
    }
    const session = http2.connect(`http://${HOST}:${port}`);
    try {
      const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = session.request({ ':method': 'POST', ':path': '/Echo/echo', 'content-type': 'application/json', 'connect-protocol-version': '1' });
        let status = 0;
        let body = '';
        request.on('response', (h) => (status = Number(h[':status'])));
        request.on('data', (c: Buffer) => (body += c.toString()));
        request.on('end', () => resolve({ status, body }));
        request.on('error', reject);
        request.end(JSON.stringify({ b: 2 }));
      });
      expect(reply).toEqual({ status: 200, body: JSON.stringify({ b: 2 }) });
    } finally {
      session.close();
    }
    expect(await reflectedServices(port)).toEqual(expect.arrayContaining(['user.UserService']));
  });

  it('refuses an unknown engine when the gateway is built', () => {
    expect(() => new ProtocolGateway({ grpc: { engine: 'h3' as never } })).toThrow(/grpc\.engine must be 'node-http2' or 'grpc-js', got h3/);
  });
});
