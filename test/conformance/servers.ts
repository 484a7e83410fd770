/**
 * The servers every conformance adapter reaches, each hosting the case
 * table's handlers twice: as the inline JSON service `Conformance` and as the
 * generated protobuf service `conformance.ConformanceProto` (fixtures/conformance.proto):
 * a gateway on its own port, a gateway hosted on an fw app's port, and a
 * `server.grpc()` app (on fw's node:http2 engine, and again on grpc-js's).
 */
import { ProtocolGateway, server, ServiceError, type FwApplication, type Protocol } from 'fw';
import { createGrpcApplication, GrpcError, GrpcStatus, RateLimiter, type GrpcApplication } from 'fw/grpc';
import { HOST } from '../gateway/support/clients';
import type { GatewayPorts } from './adapter-types';
import { ConformanceProtoDescriptor } from './generated/conformance.fw';
import { HANDLERS, ITEM_SCHEMA, PROTO_HANDLERS, SERVICE, TRANSFORMED } from './case-table';

/** The gateway: both services, metrics on, a transformError for TEAPOT. */
export function conformanceGateway(shutdownTimeout?: number): ProtocolGateway {
  // basePath as on its own port: mounted at the app's root, HTTP/JSON keeps `/api/…` and Connect its `/<Service>/<Method>`.
  const gateway = new ProtocolGateway(shutdownTimeout === undefined ? { http: { basePath: '/api' } } : { shutdownTimeout, http: { basePath: '/api' } });
  const methods: Record<string, object> = {};
  for (const [name, m] of Object.entries(HANDLERS)) methods[name] = { handler: m.handler, streaming: m.streaming };
  methods.Named = { ...methods.Named, input: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] } };
  for (const name of ['Sum', 'SumRefused', 'Chat', 'ChatRefused']) methods[name] = { ...methods[name], input: ITEM_SCHEMA };
  methods.Guarded = { ...methods.Guarded, authentication: true };
  methods.Limited = { ...methods.Limited, rateLimit: { requests: 1, window: 60_000 } };
  gateway.addService(SERVICE, { name: SERVICE, methods } as never);
  gateway.addService(ConformanceProtoDescriptor, PROTO_HANDLERS, {
    methods: { Guarded: { authentication: true }, Limited: { rateLimit: { requests: 1, window: 60_000 } } },
  });
  // Metrics on: the last test reads every case's status label.
  gateway.configureMonitoring({ metrics: { enabled: true } });
  gateway.configureErrorHandling({
    transformError: (error: ServiceError, protocol: Protocol) => {
      if (error.code !== 'TEAPOT') return undefined as never;
      if (protocol === 'http') return { status: 418, body: { error: 'TEAPOT', message: TRANSFORMED } };
      if (protocol === 'grpc') return { code: GrpcStatus.FAILED_PRECONDITION, message: TRANSFORMED };
      if (protocol === 'websocket') return { type: 'error', error: { code: 'TEAPOT', message: TRANSFORMED } };
      // TCP and UDP: the rendering is the error frame's payload (id and traceId are added).
      return { error: { code: 'TEAPOT', message: TRANSFORMED } };
    },
  });
  return gateway;
}

/**
 * An fw app hosting `gateway` on its one port, the way docs/gateway.md shows:
 * HTTP/JSON, Connect and gRPC-Web through `middleware()`, WebSocket, gRPC,
 * TCP frames and UDP through the `get*Config()` objects; and one route of its own.
 */
export function hostingApp(gateway: ProtocolGateway): FwApplication {
  const app = server.http();
  app.get('/own-route', (_req, res) => res.json({ own: true }));
  app.use(gateway.middleware());
  return app.withOptions({ websocket: gateway.getWebSocketConfig(), grpc: gateway.getGRPCConfig(), udp: gateway.getUDPConfig(), tcp: gateway.getTCPConfig() });
}

/** Listens on any free port of 127.0.0.1; UDP is bound on the same port number (docs/gateway.md). */
export async function listenHosted(app: FwApplication): Promise<GatewayPorts> {
  await app.listen(0, HOST);
  return { port: app.port, udpPort: app.port };
}

/** The `server.grpc()` app: both services, its own middleware and rate limiter for the refusals; on `engine` (default fw's node:http2). */
export function conformanceApp(engine?: 'grpc-js'): GrpcApplication {
  const app = engine === undefined ? createGrpcApplication() : createGrpcApplication().withOptions({ grpc: { engine } });
  const limiter = new RateLimiter({ windowMs: 60_000, max: 1 });
  // server.grpc()'s own ways to refuse: its middleware and its rate limiter.
  app.use(async (call, next) => {
    if (call.method === 'Guarded') throw new GrpcError(GrpcStatus.UNAUTHENTICATED, 'Authentication required');
    if (call.method === 'Limited' && !limiter.checkLimit(call)) throw new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, 'Rate limit exceeded');
    return next();
  });
  app.addService({ name: SERVICE, methods: HANDLERS as never });
  app.addService(ConformanceProtoDescriptor, PROTO_HANDLERS as never);
  return app;
}
