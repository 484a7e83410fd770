/**
 * Spans of a live gateway against OpenTelemetry's semantic conventions
 * (v1.45.0): every protocol's span carries the RPC attributes, HTTP-carried
 * calls the HTTP ones too; a traceparent is honoured on every protocol; a
 * span the handler starts is a child of the call's span (through the
 * application's own TracerProvider); and the trace crosses a forwarded call
 * between two gateways.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { UserServiceImpl } from '../../../examples/user-service/user.service';
import { allDrivers, type Driver } from '../support/drivers';
import { HOST, WsClient } from '../support/clients';

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;

const spanNamed = (exporter: InMemorySpanExporter, name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);

describe('spans by the OpenTelemetry conventions, on a live gateway', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  let gateway: ProtocolGateway;
  let port: number;
  let drivers: Driver[];

  beforeAll(async () => {
    // What an application's OpenTelemetry setup does: a context manager and a global provider.
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(provider);
    gateway = new ProtocolGateway({});
    gateway.addService('Users', {
      getUser: async (req: { id: string }) => {
        const own = trace.getTracer('app').startSpan('load-user');
        own.end();
        return { id: req.id };
      },
      watch: {
        streaming: 'server',
        handler: async function* () {
          yield { n: 1 };
          // Later steps of a stream still run inside the call's span.
          trace.getTracer('app').startSpan('between-items').end();
          yield { n: 2 };
        },
      },
    });
    gateway.addService(UserServiceDescriptor, new UserServiceImpl());
    gateway.configureMonitoring({ tracing: { enabled: true, tracerProvider: provider } });
    port = (await gateway.listen(0, HOST)).port as number;
    drivers = await allDrivers(port, 'Users', ['getUser']);
  });

  afterAll(async () => {
    for (const d of drivers ?? []) d.close();
    await gateway?.close();
    trace.disable();
    context.disable();
    await provider.shutdown();
  });

  beforeEach(() => exporter.reset());

  test.each(['http', 'websocket', 'grpc', 'udp', 'tcp'] as const)('%s: RPC attributes, the client traceparent as parent, the handler span as a child', async (protocol) => {
    const driver = drivers.find((d) => d.protocol === protocol) as Driver;
    const outcome = await driver.call('Users', 'getUser', { id: '7' }, { traceparent: TRACEPARENT });
    expect(outcome.ok).toBe(true);
    const [span] = spanNamed(exporter, 'Users/getUser');
    expect(span).toBeDefined();
    const a = (span as ReadableSpan).attributes;
    expect(a).toMatchObject({
      'rpc.system.name': protocol === 'grpc' ? 'grpc' : 'fw',
      'rpc.method': 'Users/getUser',
      'rpc.status_code': 'OK',
      'network.transport': protocol === 'udp' ? 'udp' : 'tcp',
      'network.peer.address': '127.0.0.1',
      'fw.protocol': protocol,
    });
    expect(typeof a['network.peer.port']).toBe('number');
    for (const old of ['rpc.system', 'rpc.service', 'rpc.grpc.status_code', 'rpc.response.status_code', 'fw.status']) expect(a[old]).toBeUndefined();
    if (protocol === 'http') {
      expect(a).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/api/Users/getUser', 'url.scheme': 'http', 'http.response.status_code': 200, 'server.address': HOST, 'server.port': port, 'network.protocol.version': '1.1' });
    } else {
      expect(a['http.request.method']).toBeUndefined();
    }
    expect(span?.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(span?.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    const [own] = spanNamed(exporter, 'load-user');
    expect(own?.parentSpanContext?.spanId).toBe(span?.spanContext().spanId);
    expect(own?.spanContext().traceId).toBe(CLIENT_TRACE);
  });

  test('a generated service is named by its fully qualified method; Connect calls say connectrpc and carry HTTP attributes', async () => {
    const res = await fetch(`http://${HOST}:${port}/user.UserService/GetUser`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'connect-protocol-version': '1', traceparent: TRACEPARENT },
      body: JSON.stringify({ id: 'nobody' }),
    });
    expect(res.status).toBe(404);
    const [span] = spanNamed(exporter, 'user.UserService/GetUser');
    expect(span?.attributes).toMatchObject({
      'rpc.system.name': 'connectrpc',
      'rpc.method': 'user.UserService/GetUser',
      'rpc.status_code': 'NOT_FOUND',
      'error.type': 'NOT_FOUND',
      'http.request.method': 'POST',
      'url.path': '/user.UserService/GetUser',
      'http.response.status_code': 404,
    });
    // NOT_FOUND is the caller's outcome, not the server's fault: the span status stays unset.
    expect(span?.status.code).toBe(0);
    expect(span?.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
  });

  test('a server stream: the span ends with the stream, and spans between items are its children', async () => {
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    try {
      const replies = await ws.call('s1', 'Users', 'watch', {});
      expect(replies.map((r) => r.type)).toEqual(['stream', 'stream', 'stream_end']);
    } finally {
      ws.close();
    }
    const [span] = spanNamed(exporter, 'Users/watch');
    const [between] = spanNamed(exporter, 'between-items');
    expect(span).toBeDefined();
    expect(between?.parentSpanContext?.spanId).toBe(span?.spanContext().spanId);
  });

  test('a malformed traceparent is ignored: the call gets a fresh trace and succeeds', async () => {
    const http = drivers.find((d) => d.protocol === 'http') as Driver;
    for (const bad of ['00-00000000000000000000000000000000-b7ad6b7169203331-01', 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01', 'junk']) {
      exporter.reset();
      expect((await http.call('Users', 'getUser', { id: '1' }, { traceparent: bad })).ok).toBe(true);
      const [span] = spanNamed(exporter, 'Users/getUser');
      expect(span?.parentSpanContext).toBeUndefined();
      expect(span?.spanContext().traceId).not.toBe(CLIENT_TRACE);
    }
  });
});

describe('traceparent across a forwarded call', () => {
  const frontSpans = new InMemorySpanExporter();
  const backSpans = new InMemorySpanExporter();
  let back: ProtocolGateway;
  let front: ProtocolGateway;
  let frontPort: number;

  beforeAll(async () => {
    back = new ProtocolGateway({});
    back.addService(UserServiceDescriptor, new UserServiceImpl());
    back.configureMonitoring({ tracing: { enabled: true, exporter: backSpans, exportImmediately: true } });
    const backPort = (await back.listen(0, HOST)).port as number;
    front = new ProtocolGateway({});
    front.configureServiceDiscovery({ provider: 'static', services: { UserService: { descriptor: UserServiceDescriptor, instances: [{ host: HOST, port: backPort }] } } });
    front.configureMonitoring({ tracing: { enabled: true, exporter: frontSpans, exportImmediately: true } });
    frontPort = (await front.listen(0, HOST)).port as number;
  });

  afterAll(async () => {
    await front?.close();
    await back?.close();
  });

  test('the instance span is a child of the gateway span, in the client trace', async () => {
    const res = await fetch(`http://${HOST}:${frontPort}/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
      body: JSON.stringify({ name: 'Ada', email: 'ada@example.com' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace-id')).toBe(CLIENT_TRACE);
    const [gatewaySpan] = spanNamed(frontSpans, 'user.UserService/CreateUser');
    const [instanceSpan] = spanNamed(backSpans, 'user.UserService/CreateUser');
    expect(gatewaySpan?.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(gatewaySpan?.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(instanceSpan?.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(instanceSpan?.parentSpanContext?.spanId).toBe(gatewaySpan?.spanContext().spanId);
    expect(instanceSpan?.attributes['rpc.system.name']).toBe('grpc');
  });

  test('with tracing off at the gateway, the client traceparent still reaches the instance', async () => {
    front.configureMonitoring({ metrics: { enabled: true } });
    backSpans.reset();
    const res = await fetch(`http://${HOST}:${frontPort}/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
      body: JSON.stringify({ name: 'Grace', email: 'grace@example.com' }),
    });
    expect(res.status).toBe(200);
    const [instanceSpan] = spanNamed(backSpans, 'user.UserService/CreateUser');
    expect(instanceSpan?.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(instanceSpan?.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
  });
});
