/**
 * The gateway API of spec 4.10: construction forms, addService forms,
 * configureHTTP/WebSocket/GRPC/UDP/TCP hooks, error handling, interceptors
 * and events, enable flags, get*Config, and middleware() mounted on an fw
 * app and on bare node:http.
 */
import http from 'node:http';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { createProtocolGateway, encodeFrame, FrameType, ProtocolGateway, server, ServiceError, type GatewayEvent } from 'fw';
import { grpcJsonClient, grpcUnary, HOST, reflectedServices, TcpFrameClient, udpCall, udpRaw, withTimeout, WsClient } from './support/clients';
import { startedGateways } from './support/started-gateways';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { UserServiceImpl } from '../../examples/user-service/user.service';

const post = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
};


describe('gateway API', () => {
  const startGateway = startedGateways();
  const start = async (g: ProtocolGateway): Promise<number> => (await startGateway(g)).port;

  it('accepts the three addService forms and a named definition', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('A', { name: 'A', methods: { hi: { handler: async () => 'a' } } });
    g.addService('B', { hi: { handler: async () => 'b' } });
    g.addService('C', { hi: async () => 'c' });
    g.addService({ name: 'D', methods: { hi: { handler: async () => 'd' } } });
    const port = await start(g);
    for (const s of ['A', 'B', 'C', 'D']) expect((await post(`http://${HOST}:${port}/api/${s}/hi`, {})).json).toEqual({ data: s.toLowerCase() });
    expect(() => g.addService('E', { hi: 42 } as never)).toThrow(/handler/);
    expect(() => g.addService('F', { x: { handler: async () => 1, rateLimit: { requests: 1, window: 0 } } })).toThrow(/window/);
  });

  it('decides an inline handler\'s call kind by the same rule as server.grpc()', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    const kinds: string[] = [];
    g.use((call, next) => { kinds.push(`${call.method}:${call.streaming}`); return next(); });
    g.addService('K', {
      unary: async (request: unknown) => request,
      feed: async function* (request: unknown) { yield request; },
      chat: async function* (stream: AsyncIterable<unknown>) { yield* stream; },
    });
    const port = await start(g);
    const client = grpcJsonClient(port, 'K', { unary: 'none', feed: 'server', chat: 'bidirectional' });
    await grpcUnary(client, 'unary', {});
    const ended = (stream: NodeJS.EventEmitter): Promise<void> => new Promise((resolve, reject) => { stream.on('data', () => undefined); stream.on('end', resolve); stream.on('error', reject); });
    await ended(client.feed({}) as NodeJS.EventEmitter);
    const chat = client.chat() as NodeJS.EventEmitter & { write(m: unknown): void; end(): void };
    chat.write({});
    chat.end();
    await ended(chat);
    client.close();
    expect(kinds).toEqual(['unary:none', 'feed:server', 'chat:bidirectional']);
  });

  it('createProtocolGateway enables only the listed protocols', async () => {
    const g = createProtocolGateway({ protocols: ['http', 'tcp'], port: 0 });
    g.addService('E', { echo: async (r: unknown) => r });
    const port = await start(g);
    expect(g.address?.udpPort).toBeUndefined();
    expect((await post(`http://${HOST}:${port}/api/E/echo`, { a: 1 })).json).toEqual({ data: { a: 1 } });
    const tcp = await TcpFrameClient.connect(port);
    expect((await tcp.call('1', 'E', 'echo', { b: 2 }))[0]?.payload.data).toEqual({ b: 2 });
    tcp.close();
    await expect(WsClient.connect(`ws://${HOST}:${port}/ws`)).rejects.toThrow();
    const client = grpcJsonClient(port, 'E', { echo: 'none' });
    await expect(grpcUnary(client, 'echo', {})).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    client.close();
    expect(() => createProtocolGateway({ protocols: ['smtp' as never] })).toThrow(/unknown protocol/);
  });

  it('configureHTTP: basePath, routes map, transformRequest and transformResponse, CORS', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('UserService', {
      getUser: async (req: { id: string; q?: string }) => ({ id: req.id, q: req.q }),
      createUser: async (req: { name: string }) => ({ name: req.name }),
    });
    g.configureHTTP({
      basePath: '/api/v1',
      enableCORS: true,
      routes: { 'GET /users/:id': 'UserService.getUser', 'POST /users': 'UserService.createUser' },
      transformResponse: (result, method) => ({ data: result, method, version: 'v1', timestamp: 1 }),
    });
    const port = await start(g);
    const res = await fetch(`http://${HOST}:${port}/api/v1/users/42?q=x`, { headers: { origin: 'http://example.test' }, signal: AbortSignal.timeout(5000) });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({ data: { id: '42', q: 'x' }, method: 'getUser', version: 'v1', timestamp: 1 });
    expect((await post(`http://${HOST}:${port}/api/v1/users`, { name: 'Ada' })).json).toMatchObject({ data: { name: 'Ada' } });
    expect((await post(`http://${HOST}:${port}/api/v1/UserService/createUser`, { name: 'Bo' })).json).toMatchObject({ data: { name: 'Bo' } });
    g.configureHTTP({ transformRequest: (req, method) => ({ name: `${method}:${(req.body as { n: string }).n}` }), transformResponse: undefined });
    expect((await post(`http://${HOST}:${port}/api/v1/users`, { n: 'x' })).json).toEqual({ data: { name: 'createUser:x' } });
  });

  it('configureWebSocket: path, routeMessage, formatResponse; handleStreaming false refuses streams', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('S', {
      echo: async (r: unknown) => r,
      ticks: { streaming: 'server', handler: async function* () { yield 1; } },
    });
    g.configureWebSocket({
      path: '/socket',
      routeMessage: (m) => (typeof m.action === 'string' ? { service: 'S', method: m.action, data: m.payload } : undefined),
      formatResponse: (result, id, method) => ({ id, kind: 'ok', method, result }),
      handleStreaming: false,
    });
    const port = await start(g);
    const ws = await WsClient.connect(`ws://${HOST}:${port}/socket`);
    ws.send({ id: 'r1', action: 'echo', payload: { x: 1 } });
    const [reply] = await ws.until((ms) => ms.length >= 1);
    expect(reply).toMatchObject({ id: 'r1', kind: 'ok', method: 'echo', result: { x: 1 } });
    const [err] = await ws.call('r2', 'S', 'ticks', {});
    expect(err).toMatchObject({ type: 'error', error: { code: 'STREAMING_NOT_SUPPORTED' } });
    ws.close();
    expect(() => g.configureWebSocket({ messageFormat: 'xml' as never })).toThrow(/messageFormat/);
  });

  it('configureWebSocket messageFormat msgpack as the default format', async () => {
    const { encode, decode } = await import('@msgpack/msgpack');
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('S', { echo: async (r: unknown) => r });
    g.configureWebSocket({ messageFormat: 'msgpack' });
    const port = await start(g);
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`, { decode: (d) => decode(d) });
    ws.send(Buffer.from(encode({ id: 1, service: 'S', method: 'echo', data: { bin: true } })));
    const [reply] = await ws.until((ms) => ms.length >= 1);
    expect(reply).toMatchObject({ id: 1, type: 'response', data: { bin: true } });
    ws.close();
  });

  it('configureUDP: custom parseMessage/formatResponse/routeMessage and a separate port', async () => {
    const g = new ProtocolGateway({ enableTCP: false });
    g.addService('Math', { add: async (r: { a: number; b: number }) => r.a + r.b });
    g.configureUDP({
      protocol: {
        parseMessage: (buf) => {
          const [method, a, b] = buf.toString('utf8').split(' ');
          return { method, data: { a: Number(a), b: Number(b) } };
        },
        formatResponse: (result, type) => Buffer.from(type === 'error' ? `ERR ${JSON.stringify(result)}` : `OK ${String(result)}`),
      },
      routeMessage: () => ({ service: 'Math' }),
    });
    await start(g);
    const udpPort = g.address?.udpPort as number;
    expect((await udpRaw(udpPort, Buffer.from('add 2 3'))).toString()).toBe('OK 5');
    expect((await udpRaw(udpPort, Buffer.from('sub 2 3'))).toString()).toMatch(/^ERR .*METHOD_NOT_FOUND/);
  });

  it('configureGRPC: protoFiles with services and methodMapping onto gateway methods', async () => {
    const g = new ProtocolGateway({ enableUDP: false, grpc: { reflection: true } });
    g.addService('Users', {
      getUser: async (r: { id: string }) => ({ id: r.id, name: `user ${r.id}` }),
      streamUsers: { streaming: 'server', handler: async function* (r: { limit: number }) {
        for (let i = 0; i < r.limit; i++) yield { id: String(i), name: 'n' };
      } },
    });
    const protoFile = path.join(__dirname, 'fixtures/greeter.proto');
    g.configureGRPC({
      protoFiles: [protoFile],
      services: { 'demo.UserService': 'Users' },
      methodMapping: { GetUser: 'getUser', ListUsers: 'streamUsers' },
      transformResponse: (result, method) => (method === 'getUser' ? { ...(result as object), name: `${(result as { name: string }).name}!` } : result),
    });
    const port = await start(g);
    const pkg = grpc.loadPackageDefinition(loadSync(protoFile)) as unknown as { demo: { UserService: grpc.ServiceClientConstructor } };
    const client = new pkg.demo.UserService(`${HOST}:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, (...a: unknown[]) => unknown>;
    const { value } = await grpcUnary(client, 'GetUser', { id: '9' });
    expect(value).toEqual({ id: '9', name: 'user 9!' });
    const stream = client.ListUsers?.({ limit: 3 }) as grpc.ClientReadableStream<{ id: string }>;
    const ids: string[] = [];
    await withTimeout((async () => {
      for await (const u of stream) ids.push(u.id);
    })(), 5000, 'ListUsers');
    expect(ids).toEqual(['0', '1', '2']);
    client.close();
    // Reflection lists the proto-file service.
    expect(await reflectedServices(port, 'v1alpha')).toContain('demo.UserService');
  });

  it('reflection covers generated services, also those added after listen', async () => {
    const g = new ProtocolGateway({ enableUDP: false, grpc: { reflection: true } });
    g.addService('Early', { ping: async () => ({}) });
    const port = await start(g);
    expect(await reflectedServices(port, 'v1')).not.toContain('user.UserService');
    g.addService(UserServiceDescriptor, new UserServiceImpl());
    expect(await reflectedServices(port, 'v1')).toContain('user.UserService');
  });

  it('configureErrorHandling replaces the rendering per protocol', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('S', { fail: async () => { throw new ServiceError('BOOM', 'it broke', 409, { why: 'x' }); } });
    g.configureErrorHandling({
      transformError: (error, protocol) =>
        protocol === 'http' ? { status: 418, body: { oops: error.code } } : protocol === 'grpc' ? { code: 9, message: `custom ${error.message}` } : { error: { code: `X_${error.code}`, message: error.message } },
    });
    const port = await start(g);
    const res = await post(`http://${HOST}:${port}/api/S/fail`, {});
    expect(res.status).toBe(418);
    expect(res.json).toEqual({ oops: 'BOOM' });
    const client = grpcJsonClient(port, 'S', { fail: 'none' });
    await expect(grpcUnary(client, 'fail', {})).rejects.toMatchObject({ code: 9, details: 'custom it broke' });
    client.close();
    const tcp = await TcpFrameClient.connect(port);
    expect((await tcp.call('1', 'S', 'fail', {}))[0]?.payload.error).toEqual({ code: 'X_BOOM', message: 'it broke' });
    tcp.close();
  });

  it('runs interceptors around every dispatch and reports connection and message events', async () => {
    const g = new ProtocolGateway({});
    const seen: string[] = [];
    const events: GatewayEvent[] = [];
    g.use(async (call, next) => {
      seen.push(`${call.context.protocol}:${call.service}.${call.method}`);
      const result = await next();
      return call.method === 'echo' ? { wrapped: result } : result;
    });
    g.addEventSink({ onEvent: (e) => events.push(e) });
    g.addService('S', { echo: async (r: unknown) => r, hidden: { handler: async () => 1 } });
    const port = await start(g);
    expect((await post(`http://${HOST}:${port}/api/S/echo`, { a: 1 })).json).toEqual({ data: { wrapped: { a: 1 } } });
    const udp = await udpCall(port, encodeFrame(FrameType.Request, { id: 'x', service: 'S', method: 'echo', data: 1 }));
    expect(udp.payload.data).toEqual({ wrapped: 1 });
    const tcp = await TcpFrameClient.connect(port);
    await tcp.call('1', 'S', 'nope', {});
    tcp.close();
    await tcp.waitClosed();
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(['http:S.echo', 'udp:S.echo', 'tcp:S.nope']);
    expect(events.some((e) => e.type === 'connection-open' && e.protocol === 'tcp')).toBe(true);
    expect(events.some((e) => e.type === 'connection-close' && e.protocol === 'tcp')).toBe(true);
    expect(events.some((e) => e.type === 'message' && e.protocol === 'udp' && e.direction === 'in' && e.bytes > 6)).toBe(true);
  });

  it('service middleware wraps only its service; a service rateLimit counts all its methods', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    const order: string[] = [];
    g.addService('Wrapped', {
      name: 'Wrapped',
      middleware: [
        async (call, next) => {
          order.push(`outer:${call.method}`);
          const r = await next();
          return { outer: r };
        },
        async (_call, next) => {
          order.push('inner');
          return next();
        },
      ],
      rateLimit: { requests: 3, window: 60_000 },
      methods: { a: { handler: async () => 'a' }, b: { handler: async () => 'b' } },
    });
    g.addService('Plain', { c: async () => 'c' });
    const port = await start(g);
    expect((await post(`http://${HOST}:${port}/api/Wrapped/a`, {})).json).toEqual({ data: { outer: 'a' } });
    expect((await post(`http://${HOST}:${port}/api/Plain/c`, {})).json).toEqual({ data: 'c' });
    expect(order).toEqual(['outer:a', 'inner']);
    expect((await post(`http://${HOST}:${port}/api/Wrapped/b`, {})).status).toBe(200);
    expect((await post(`http://${HOST}:${port}/api/Wrapped/a`, {})).status).toBe(200);
    const limited = await post(`http://${HOST}:${port}/api/Wrapped/b`, {});
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ error: 'RATE_LIMIT_EXCEEDED' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post(`http://${HOST}:${port}/api/Plain/c`, {})).status).toBe(200);
  });

  it('get*Config return option objects for app.withOptions', () => {
    const g = new ProtocolGateway({ grpc: { reflection: true, maxMessageSize: 1024 }, udp: { maxPacketSize: 1200 }, tcp: { noDelay: true } });
    expect(g.getWebSocketConfig()).toMatchObject({ path: '/ws', maxPayload: 1 << 20 });
    expect(typeof g.getWebSocketConfig().handleUpgrade).toBe('function');
    expect(g.getGRPCConfig()).toMatchObject({ reflection: true, maxReceiveMessageLength: 1024, maxSendMessageLength: 1024 });
    expect(g.getUDPConfig()).toMatchObject({ maxPacketSize: 1200 });
    expect(g.getTCPConfig()).toMatchObject({ noDelay: true, maxFrameSize: 4 << 20 });
  });

  it('getMetrics answers zeros before monitoring is configured, counts after', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    expect(g.getMetrics().requests_total).toEqual({ http: 0, websocket: 0, grpc: 0, udp: 0, tcp: 0 });
    g.configureMonitoring({ metrics: { enabled: true, collectors: ['request_count', 'request_duration'] } });
    g.addService('S', { echo: async (r: unknown) => r });
    const port = await start(g);
    await post(`http://${HOST}:${port}/api/S/echo`, {});
    expect(g.getMetrics().requests_total.http).toBe(1);
    const text = await (await fetch(`http://${HOST}:${port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    expect(text).toContain('# TYPE');
  });

  it('reads and echoes the trace id under monitoring\'s correlationHeader', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.configureMonitoring({ tracing: { enabled: false, correlationHeader: 'X-Request-ID' } });
    g.addService('S', { trace: async (_r: unknown, ctx: { tracing: { traceId: string } }) => ctx.tracing.traceId });
    const port = await start(g);
    const res = await post(`http://${HOST}:${port}/api/S/trace`, {}, { 'x-request-id': 'req-77' });
    expect(res.json).toEqual({ data: 'req-77' });
    expect(res.headers.get('x-request-id')).toBe('req-77');
    // gRPC reads and echoes the same header, not a fixed x-trace-id.
    const client = grpcJsonClient(port, 'S', { trace: 'none' });
    const md = new grpc.Metadata();
    md.set('x-request-id', 'req-78');
    const { value, headers } = await grpcUnary(client, 'trace', {}, md);
    expect(value).toBe('req-78');
    expect(headers.get('x-request-id')).toEqual(['req-78']);
    client.close();
  });

  it('middleware() mounts on an fw app and on bare node:http', async () => {
    const g = new ProtocolGateway({});
    g.addService('S', { echo: async (r: unknown) => r });
    const app = server.http();
    app.use('/api', g.middleware());
    app.get('/other', (_req, res) => res.json({ other: true }));
    await app.listen(0, HOST);
    const fwPort = app.address()?.port as number;
    try {
      expect((await post(`http://${HOST}:${fwPort}/api/S/echo`, { via: 'fw' })).json).toEqual({ data: { via: 'fw' } });
      expect(await (await fetch(`http://${HOST}:${fwPort}/other`)).json()).toEqual({ other: true });
    } finally {
      await app.close();
    }
    const handler = g.middleware();
    const bare = http.createServer((req, res) => handler(req, res, () => {
      res.statusCode = 404;
      res.end('fallthrough');
    }));
    await new Promise<void>((r) => bare.listen(0, HOST, () => r()));
    const port = (bare.address() as { port: number }).port;
    expect((await post(`http://${HOST}:${port}/S/echo`, { via: 'node' })).json).toEqual({ data: { via: 'node' } });
    expect(await (await fetch(`http://${HOST}:${port}/x/y/z`)).text()).toBe('fallthrough');
    await new Promise((r) => bare.close(r));
  });
});
