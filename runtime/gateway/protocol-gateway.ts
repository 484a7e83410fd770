/**
 * `ProtocolGateway`: one set of services served over HTTP, WebSocket, gRPC,
 * UDP and TCP, on one port (spec 4.10). It owns the registry and dispatcher,
 * builds the transport adapters from their table (adapter-table.ts) and the
 * one-port listener, and plugs in authentication, monitoring and service
 * discovery through the dispatch interceptors and event sinks of
 * extension-points.ts.
 */
import type { Protocol } from '../core/request-context';
import { assertSafeCors } from '../core/cors-policy';
import { pinTickObjectShape } from '../core/tick-object-pin';
import type { ServiceDescriptor } from '../rpc/descriptor';
import type { TransportAdapter } from './transport-adapter';
import { isServiceDescriptor } from '../rpc/descriptor';
import { PORT_HOST, type HostedDrain, type HostedGrpcOptions, type HostedTcpOptions, type HostedUdpOptions, type HostedWebSocketOptions, type PortHostFactory } from '../http/gateway-hosting';
import type { AuthenticationConfig } from './auth/types';
import type { CallCore } from '../rpc/call-core';
import type { ServiceError } from './errors';
import type { DispatchInterceptor, GatewayEvent, GatewayEventSink, RemoteServiceResolver } from './extension-points';
import type { GatewayCore } from './gateway-core';
import type { DrainTargets } from './graceful-shutdown';
import type { ConnectGatewayConfig, ConnectTransport } from './connect/transport';
import type { GrpcGatewayConfig } from './grpc/method-table';
import type { GrpcTransport } from './grpc/transport';
import type { HttpTransport, HttpGatewayConfig, HttpGatewayHandler } from './http/transport';
import type { CreateGatewayOptions, ErrorHandlingConfig, GatewayAddress, GatewayOptions } from './options';
import type { OutputBudget } from './output-budget';
import type { ServiceRegistry } from '../rpc/registry';
import type { StreamListener } from './stream-listener';
import type { AdapterSet } from './adapter-table';
import type { TcpTransport } from './tcp/transport';
import type { DescriptorServiceOptions, ServiceInput } from './types';
import type { UdpTransport, UdpGatewayConfig } from './udp/transport';
import type { WebSocketTransport, WebSocketGatewayConfig } from './websocket/transport';
import type { Monitoring } from './monitoring/create-monitoring';
import type { MonitoringConfig } from './monitoring/monitoring-config';
import type { GatewayMetrics } from './monitoring/metrics-snapshot';
import type { WorkerSupervisor } from '../workers/supervisor';
import { checkProductionOptions, drainDelay, envHost, envPort } from '../workers/production-options';
import { listenInProduction } from '../workers/production-listen';
import { isFwWorker } from '../workers/port-sharing';
import type { AdminServer } from './admin-server';

/* eslint-disable @typescript-eslint/no-require-imports */
/** The listener for an fw app's port; app-hosting.ts (and the mux) load when an app first listens with it. */
const hostOnAppPort: PortHostFactory = (server, options) => (require('./app-hosting') as typeof import('./app-hosting')).hostOnAppPort(server, options);
/* eslint-enable @typescript-eslint/no-require-imports */

/** The drain behind close(), loaded when a gateway first closes. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const gracefulShutdown = (): typeof import('./graceful-shutdown') => require('./graceful-shutdown') as typeof import('./graceful-shutdown');

/** Validates `connect` options when given (connect/transport.ts loads only then). */
function checkConnectConfig(config: ConnectGatewayConfig): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./connect/transport') as typeof import('./connect/transport')).checkConnectConfig(config);
}

/** Minimal view of discovery's factory, loaded lazily. */
type DiscoveryFactory = (
  config: unknown,
  options: {
    descriptorFor(service: string): ServiceDescriptor | undefined;
    onEvent(event: { service: string; decision: string; instance: string | undefined; reason: string }): void;
  },
) => RemoteServiceResolver & { remoteServices(): Array<{ descriptor: ServiceDescriptor; handlers: Record<string, unknown> }> };

/**
 * @example
 * import { ProtocolGateway } from 'fw';
 * const gateway = new ProtocolGateway({ enableHTTP: true, enableWebSocket: true, enableGRPC: true, enableUDP: true, enableTCP: true });
 * gateway.addService('UserService', { getUser: async ({ id }) => ({ id, name: 'Ada' }) });
 * const { port } = await gateway.listen(3000, '127.0.0.1');
 * // curl -X POST localhost:3000/api/UserService/getUser -d '{"id":"1"}' → {"data":{"id":"1","name":"Ada"}}
 */
export class ProtocolGateway {
  readonly #options: GatewayOptions;
  readonly #registry: ServiceRegistry;
  readonly #dispatcher: CallCore;
  readonly #interceptors: DispatchInterceptor[] = [];
  readonly #sinks: GatewayEventSink[] = [];
  #httpConfig: HttpGatewayConfig;
  #wsConfig: WebSocketGatewayConfig;
  #grpcConfig: GrpcGatewayConfig;
  #udpConfig: UdpGatewayConfig;
  #connectConfig: ConnectGatewayConfig;
  #transformError: ErrorHandlingConfig['transformError'] = undefined;
  #monitoring: Monitoring | undefined = undefined;
  #address: GatewayAddress | undefined = undefined;
  readonly #core: GatewayCore;
  /** The transport adapters, each built on first use from the table (adapter-table.ts). */
  readonly #adapterSet: AdapterSet;
  #streamListener: StreamListener | undefined = undefined;
  #closing: Promise<void> | undefined = undefined;
  #hostedDrain: Promise<void> | undefined = undefined;
  /** The gateway-wide cap on output for clients that do not read, built with the first WebSocket or TCP transport. */
  #outputBudget: OutputBudget | undefined = undefined;
  #lastCutWarning = 0;
  /** Set in the cluster primary of `workers`: it supervises the workers and serves nothing itself. */
  #supervisor: WorkerSupervisor | undefined = undefined;
  /** Shutdown has begun: readiness is false, calls are still served until the drain delay passes. */
  #stopping = false;
  /** `/metrics`, `/ready` and `/health` on `adminPort`, when that option is set. */
  #admin: AdminServer | undefined = undefined;

  constructor(options: GatewayOptions = {}) {
    if (options === null || typeof options !== 'object') throw new TypeError('ProtocolGateway options must be an object');
    this.#options = options;
    // `import 'fw'` loads only this class; its machinery loads with the first gateway.
    /* eslint-disable @typescript-eslint/no-require-imports */
    this.#registry = new (require('../rpc/registry') as typeof import('../rpc/registry')).ServiceRegistry();
    this.#dispatcher = new (require('../rpc/call-core') as typeof import('../rpc/call-core')).CallCore(this.#registry);
    /* eslint-enable @typescript-eslint/no-require-imports */
    this.#httpConfig = { ...(options.http ?? {}) };
    if (this.#httpConfig.enableCORS === true) assertSafeCors(this.#httpConfig.cors, 'ProtocolGateway http.cors');
    // Limits that cannot be safe fail here, at start (modules load with the first gateway, not with `import 'fw'`).
    /* eslint-disable @typescript-eslint/no-require-imports */
    if (options.grpc !== undefined) {
      (require('../grpc/h2-limits') as typeof import('../grpc/h2-limits')).resolveHttp2Limits(options.grpc);
      (require('../grpc/options') as typeof import('../grpc/options')).serverEngine(options.grpc);
    }
    if (options.shutdownTimeout !== undefined) (require('./graceful-shutdown') as typeof import('./graceful-shutdown')).checkShutdownTimeout(options.shutdownTimeout);
    checkProductionOptions(options);
    if (options.adminPort !== undefined && (!Number.isInteger(options.adminPort) || options.adminPort < 0 || options.adminPort > 65535)) {
      throw new RangeError(`adminPort must be an integer from 0 to 65535, got ${String(options.adminPort)}`);
    }
    /* eslint-enable @typescript-eslint/no-require-imports */
    this.#wsConfig = { ...(options.websocket ?? {}) };
    this.#grpcConfig = {};
    this.#udpConfig = { ...(options.udp ?? {}) };
    this.#connectConfig = { ...(options.connect ?? {}) };
    if (options.connect !== undefined) checkConnectConfig(this.#connectConfig);
    const self = this;
    this.#core = {
      dispatcher: this.#dispatcher,
      get observed() {
        return self.#sinks.length > 0;
      },
      emit: (event: GatewayEvent) => this.#emit(event),
      renderError: (error: ServiceError, protocol: Protocol) => this.#transformError?.(error, protocol),
      get traceHeader() {
        return self.#monitoring?.correlationHeader ?? 'X-Trace-ID';
      },
      get stopping() {
        return self.#stopping;
      },
    };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.#adapterSet = new (require('./adapter-table') as typeof import('./adapter-table')).AdapterSet({
      core: this.#core,
      registry: this.#registry,
      options: () => this.#options,
      httpConfig: () => this.#httpConfig,
      connectConfig: () => this.#connectConfig,
      websocketConfig: () => this.#wsConfig,
      grpcConfig: () => this.#grpcConfig,
      udpConfig: () => this.#udpConfig,
      budget: () => this.#budget,
      // With an admin port these move there, off the service port.
      metrics: () => (this.#options.adminPort === undefined ? this.#metricsEndpoint() : undefined),
      readiness: () => (this.#options.adminPort === undefined ? this.#readiness() : undefined),
    });
  }

  /** What `GET /metrics` serves: this process's registry, or in a worker every worker's, aggregated. */
  #metricsEndpoint(): { text(): Promise<string>; contentType: string } | undefined {
    const m = this.#monitoring;
    if (m === undefined) return undefined;
    if (!isFwWorker()) return { text: () => m.metricsText(), contentType: m.metricsContentType };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const link = (require('../workers/worker-link') as typeof import('../workers/worker-link')).workerLink();
    return { text: () => link.aggregatedMetrics().then((aggregate) => aggregate.text), contentType: m.metricsContentType };
  }

  /** What `GET /ready` answers: not ready once shutdown began, else discovery's status (or plain ready). */
  #readiness(): { ready: boolean; status: 'ready' | 'not ready'; [detail: string]: unknown } {
    const discovery = this.#dispatcher.resolver?.status?.();
    if (this.#stopping) return { status: 'not ready', error: 'shutting down', ...discovery, ready: false };
    const ready = discovery?.ready ?? true;
    return { status: ready ? 'ready' : 'not ready', ...discovery, ready };
  }

  /** The one TCP listener (and its mux), built when the gateway first listens itself. */
  get #listener(): StreamListener {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (this.#streamListener ??= new (require('./stream-listener') as typeof import('./stream-listener')).StreamListener({
      enabled: (p) => this.#enabled(p),
      options: () => this.#options,
      adapters: this.#adapterSet,
    }));
  }

  // Each transport and its libraries (body-parser, ws, grpc-js, …) load when the
  // gateway first needs it, so a gateway (or an `fw` import) without gRPC never loads grpc-js.
  get #http(): HttpTransport {
    return this.#adapterSet.get('http');
  }

  get #connect(): ConnectTransport {
    return this.#adapterSet.get('connect');
  }

  get #ws(): WebSocketTransport {
    return this.#adapterSet.get('websocket');
  }

  get #grpc(): GrpcTransport {
    return this.#adapterSet.get('grpc');
  }

  get #udp(): UdpTransport {
    return this.#adapterSet.get('udp');
  }

  get #tcp(): TcpTransport {
    return this.#adapterSet.get('tcp');
  }

  /* eslint-disable @typescript-eslint/no-require-imports */
  get #budget(): OutputBudget {
    const build = (): OutputBudget => {
      const { DEFAULT_MAX_BUFFERED_OUTPUT, OutputBudget } = require('./output-budget') as typeof import('./output-budget');
      return new OutputBudget(this.#options.maxBufferedOutputBytes ?? DEFAULT_MAX_BUFFERED_OUTPUT, (output, bufferedBytes, totalBytes, limitBytes) => {
        this.#emit({ type: 'slow-consumer-cut', protocol: output.protocol, connectionId: output.connectionId, bufferedBytes, totalBytes, limitBytes });
        // One warning per burst of cuts, not one per connection.
        if (Date.now() - this.#lastCutWarning > 10_000) {
          this.#lastCutWarning = Date.now();
          process.emitWarning(`gateway output buffers passed their ${limitBytes}-byte cap: cutting the slowest consumers (${output.connectionId} had ${bufferedBytes} bytes unread)`, 'FwSlowConsumerWarning');
        }
      });
    };
    return (this.#outputBudget ??= build());
  }

  /* eslint-enable @typescript-eslint/no-require-imports */

  #enabled(protocol: Protocol): boolean {
    const o = this.#options;
    const flag = { http: o.enableHTTP, websocket: o.enableWebSocket, grpc: o.enableGRPC, udp: o.enableUDP, tcp: o.enableTCP }[protocol];
    return flag !== false;
  }

  /**
   * Registers a service. Forms: `(name, ServiceDefinition)`, `(name, {methods})`,
   * `(name, {method: handler})`, `(ServiceDefinition)` with a `name`, or a
   * generated `(Descriptor, handlers, options?)`.
   *
   * @example
   * gateway.addService(UserServiceDescriptor, handlers); // generated by fw-gen
   * gateway.addService('Echo', { echo: async (req) => req });
   */
  addService(name: string, definition: ServiceInput): this;
  addService(definition: ServiceInput & { name: string }): this;
  addService(descriptor: ServiceDescriptor, handlers: object, options?: DescriptorServiceOptions): this;
  addService(first: string | ServiceDescriptor | (ServiceInput & { name: string }), second?: ServiceInput | object, options?: DescriptorServiceOptions): this {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const forms = require('./registry') as typeof import('./registry');
    if (isServiceDescriptor(first)) {
      const defaults = { ignoreUnknownFields: this.#options.ignoreUnknownFields, validateResponses: this.#options.validateResponses, validation: this.#options.validation };
      this.#registry.add(forms.descriptorService(first, second as Record<string, unknown>, options, defaults), [first.typeName]);
    } else if (typeof first === 'string') {
      this.#registry.add(forms.inlineService(first, second as ServiceInput));
    } else if (first !== null && typeof first === 'object' && typeof (first as { name?: unknown }).name === 'string') {
      this.#registry.add(forms.inlineService((first as { name: string }).name, first));
    } else {
      throw new TypeError('addService(name, definition) or addService(descriptor, handlers)');
    }
    if (this.#address !== undefined && this.#enabled('grpc')) this.#grpc.sync();
    return this;
  }

  /** Adds an interceptor `(call, next)` around every dispatch (after monitoring's). */
  use(interceptor: DispatchInterceptor): this {
    this.#interceptors.push(interceptor);
    this.#applyInterceptors();
    return this;
  }

  /** Receives connection, message-size and buffer events from every transport. */
  addEventSink(sink: GatewayEventSink): this {
    if (sink === null || typeof sink !== 'object' || typeof sink.onEvent !== 'function') throw new TypeError('event sink needs onEvent(event)');
    this.#sinks.push(sink);
    return this;
  }

  #applyInterceptors(): void {
    const list = this.#monitoring === undefined ? [...this.#interceptors] : [this.#monitoring.interceptor, ...this.#interceptors];
    this.#dispatcher.setInterceptors(list);
  }

  #emit(event: GatewayEvent): void {
    for (const sink of this.#sinks) {
      try {
        sink.onEvent(event);
      } catch {
        // A failing sink must not break the transport that reported the event.
      }
    }
  }

  /** `configureHTTP({basePath, routes, transformRequest, transformResponse})`. */
  configureHTTP(config: HttpGatewayConfig): this {
    if (config.enableCORS === true || (config.enableCORS === undefined && this.#httpConfig.enableCORS === true)) assertSafeCors(config.cors ?? this.#httpConfig.cors, 'configureHTTP()');
    this.#httpConfig = { ...this.#httpConfig, ...config };
    return this;
  }

  /** `configureWebSocket({path, messageFormat, routeMessage, formatResponse, handleStreaming})`. */
  configureWebSocket(config: WebSocketGatewayConfig): this {
    if (config.messageFormat !== undefined && !['json', 'msgpack', 'binary'].includes(config.messageFormat)) {
      throw new TypeError(`messageFormat must be json, msgpack or binary, not ${String(config.messageFormat)}`);
    }
    this.#wsConfig = { ...this.#wsConfig, ...config };
    return this;
  }

  /** `configureGRPC({protoFiles, services, methodMapping, transformRequest, transformResponse})`. */
  configureGRPC(config: GrpcGatewayConfig): this {
    this.#grpcConfig = { ...this.#grpcConfig, ...config };
    if (this.#address !== undefined && this.#enabled('grpc')) this.#grpc.sync();
    return this;
  }

  /**
   * `configureConnect({cors, maxMessageSize, enabled})`: Connect and gRPC-Web
   * clients (Connect-ES, browsers) on the HTTP port.
   *
   * @example
   * gateway.configureConnect({ cors: { allowedOrigins: ['https://app.example.com'], allowedHeaders: ['Authorization'] } });
   */
  configureConnect(config: ConnectGatewayConfig): this {
    const next = { ...this.#connectConfig, ...config };
    checkConnectConfig(next);
    this.#connectConfig = next;
    return this;
  }

  /** `configureUDP({port, protocol: {parseMessage, formatResponse}, routeMessage})`. */
  configureUDP(config: UdpGatewayConfig): this {
    this.#udpConfig = { ...this.#udpConfig, ...config };
    return this;
  }

  /** `configureTCP({maxFrameSize, frameTimeout, maxTotalBufferedBytes, idleTimeout, highWaterMark, maxBufferedBytes, keepAlive, noDelay})`. */
  configureTCP(config: NonNullable<GatewayOptions['tcp']>): this {
    this.#options.tcp = { ...(this.#options.tcp ?? {}), ...config };
    return this;
  }

  /** `configureAuthentication({providers, rules})` (spec part 5). */
  configureAuthentication(config: AuthenticationConfig): this {
    // Loaded here so gateways without authentication never load jose.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Authenticator } = require('./auth/authenticator') as typeof import('./auth/authenticator');
    this.#dispatcher.authenticator = new Authenticator(config);
    return this;
  }

  /** `configureErrorHandling({transformError})` (spec 7.3). */
  configureErrorHandling(config: ErrorHandlingConfig): this {
    if (config.transformError !== undefined && typeof config.transformError !== 'function') throw new TypeError('transformError must be a function');
    this.#transformError = config.transformError;
    return this;
  }

  /** `configureMonitoring({metrics, tracing, logging})`; `GET /metrics` then serves Prometheus text. */
  configureMonitoring(config: MonitoringConfig): this {
    // Loaded on demand so gateways without monitoring never load prom-client/OpenTelemetry/pino.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createMonitoring } = require('./monitoring') as typeof import('./monitoring');
    const previous = this.#monitoring;
    // Spans name methods fully (`user.UserService/GetUser`); inline services have no package, so `UserService/getUser`.
    const monitoring = createMonitoring(config, (service, method) => {
      const m = this.#registry.resolve(service, method);
      if (m !== undefined) return m.descriptor !== undefined ? m.descriptor.path.slice(1) : `${service}/${method}`;
      // Forwarded by discovery without a descriptor: served, under the names the caller used.
      return this.#dispatcher.resolver?.resolve(service, method) !== undefined ? `${service}/${method}` : undefined;
    });
    if (previous !== undefined) {
      const i = this.#sinks.indexOf(previous);
      if (i !== -1) this.#sinks.splice(i, 1);
      void previous.close();
    }
    this.#monitoring = monitoring;
    this.#sinks.push(monitoring);
    this.#applyInterceptors();
    return this;
  }

  /** `configureServiceDiscovery({provider, services, routing})`: calls to services not hosted here go to discovered instances. */
  configureServiceDiscovery(config: unknown): this {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createServiceDiscovery } = require('./discovery') as { createServiceDiscovery: DiscoveryFactory };
    const previous = this.#dispatcher.resolver;
    const discovery = createServiceDiscovery(config, {
      descriptorFor: (service) => this.#registry.service(service)?.descriptor,
      onEvent: (event) => {
        if (this.#core.observed) this.#emit({ type: 'discovery', ...event });
      },
    });
    this.#dispatcher.resolver = discovery;
    // Services known by descriptor only: served here like generated services, each handler forwarding to an instance.
    for (const remote of discovery.remoteServices()) this.addService(remote.descriptor, remote.handlers);
    if (previous !== undefined) void previous.close();
    return this;
  }

  /**
   * Output now buffered for clients that do not read, gateway-wide, against
   * its cap (`maxBufferedOutputBytes`), and how many connections were cut.
   *
   * @example
   * const { totalBytes, limitBytes, cut } = gateway.bufferedOutput();
   */
  bufferedOutput(): { totalBytes: number; limitBytes: number; cut: number } {
    const budget = this.#budget;
    return { totalBytes: budget.totalBytes(), limitBytes: budget.maxBytes, cut: budget.cuts };
  }

  /** `{requests_total, avg_response_time, …}` per protocol; zeros until monitoring is configured. */
  getMetrics(): GatewayMetrics {
    if (this.#monitoring !== undefined) {
      const local = this.#monitoring.getMetrics();
      if (!isFwWorker()) return local;
      // In a worker: its own figures plus the others' last snapshots (each at most a second old).
      /* eslint-disable @typescript-eslint/no-require-imports */
      const peers = (require('../workers/worker-link') as typeof import('../workers/worker-link')).workerLink().peerSnapshots() as GatewayMetrics[];
      return (require('../workers/merge-snapshots') as typeof import('../workers/merge-snapshots')).mergeSnapshots([local, ...peers]);
      /* eslint-enable @typescript-eslint/no-require-imports */
    }
    const zero = { http: 0, websocket: 0, grpc: 0, udp: 0, tcp: 0 };
    return { requests_total: { ...zero }, avg_response_time: { ...zero } };
  }

  /**
   * Connect-style middleware serving the gateway's HTTP bindings inside another app.
   *
   * @example
   * const app = server.http();
   * app.use('/api', gateway.middleware()); // POST /api/UserService/getUser
   */
  middleware(): HttpGatewayHandler {
    if (this.#httpConfig.basePath === undefined) this.#httpConfig = { ...this.#httpConfig, basePath: '/' };
    const http = this.#http.handle;
    return (req, res, next) => {
      if (!this.#connect.tryHandle(req, res)) http(req, res, next);
    };
  }

  /** WebSocket options for `app.withOptions({websocket})`, with `handleUpgrade` for the host server's `upgrade` event. */
  getWebSocketConfig(): WebSocketGatewayConfig & HostedWebSocketOptions & { path: string; maxPayload: number } {
    return this.#adapterSet.carriedBy({
      ...this.#wsConfig,
      [PORT_HOST]: hostOnAppPort,
      path: this.#ws.path,
      maxPayload: this.#wsConfig.maxPayload ?? 1 << 20,
      handleUpgrade: (req, socket, head) => this.#ws.handleUpgrade(req, socket, head),
      drain: this.#drainHosted,
    });
  }

  /** gRPC options for `app.withOptions({grpc})`; `injectConnection` serves an h2c socket. */
  getGRPCConfig(): HostedGrpcOptions & { reflection: boolean; maxReceiveMessageLength: number; maxSendMessageLength: number } {
    const max = this.#options.grpc?.maxMessageSize ?? 4 << 20;
    return this.#adapterSet.carriedBy({
      [PORT_HOST]: hostOnAppPort,
      reflection: this.#options.grpc?.reflection === true,
      maxReceiveMessageLength: max,
      maxSendMessageLength: max,
      injectConnection: (socket) => this.#grpc.inject(socket),
      drain: this.#drainHosted,
    });
  }

  /** UDP options for `app.withOptions({udp})`; the host app calls `bind(port, host)` after it listens and `close()` when it closes. */
  getUDPConfig(): UdpGatewayConfig & HostedUdpOptions & { maxPacketSize: number } {
    return this.#adapterSet.carriedBy({
      ...this.#udpConfig,
      [PORT_HOST]: hostOnAppPort,
      maxPacketSize: this.#udpConfig.maxPacketSize ?? 65507,
      bind: (port, host) => this.#udp.bind(port, host),
      close: () => this.#udp.close(),
      drain: this.#drainHosted,
    });
  }

  /** TCP options for `app.withOptions({tcp})`; `handleConnection` serves a frame-protocol socket. */
  getTCPConfig(): NonNullable<GatewayOptions['tcp']> & HostedTcpOptions & { maxFrameSize: number } {
    return this.#adapterSet.carriedBy({
      ...(this.#options.tcp ?? {}),
      [PORT_HOST]: hostOnAppPort,
      maxFrameSize: this.#options.tcp?.maxFrameSize ?? 4 << 20,
      maxConnections: this.#options.maxConnections,
      maxConnectionsPerAddress: this.#options.maxConnectionsPerAddress,
      handleConnection: (socket) => this.#tcp.handle(socket),
      drain: this.#drainHosted,
    });
  }

  /** Where the gateway listens (after `listen()`). */
  get address(): GatewayAddress | undefined {
    return this.#address;
  }

  /**
   * Starts every enabled protocol: one TCP listener (HTTP, WebSocket, gRPC,
   * TCP frames) and UDP on the same port number.
   */
  async listen(port?: number, host?: string): Promise<GatewayAddress> {
    if (this.#address !== undefined) throw new Error('gateway is already listening');
    const bindHost = host ?? this.#options.host ?? envHost('0.0.0.0');
    const wanted = port ?? this.#options.port ?? envPort(0);
    const { address, supervisor } = await listenInProduction({
      options: this.#options,
      shutdownTimeoutMs: () => this.#options.shutdownTimeout ?? gracefulShutdown().DEFAULT_SHUTDOWN_TIMEOUT,
      stoppable: this.#stoppable,
      bind: async (assigned, link) => {
        pinTickObjectShape();
        link?.addMetricsSource({
          prometheusJSON: async () => (await this.#monitoring?.metricsJSON()) ?? [],
          processJSON: async () => (await this.#monitoring?.processMetricsJSON()) ?? [],
          snapshot: () => this.#monitoring?.getMetrics(),
        });
        const bound = await this.#listenHere(assigned.port ?? wanted, bindHost, assigned.udpPort ?? this.#udpConfig.port);
        if (this.#options.adminPort !== undefined) {
          // eslint-disable-next-line @typescript-eslint/no-require-imports
          const admin = new (require('./admin-server') as typeof import('./admin-server')).AdminServer({ metrics: () => this.#metricsEndpoint(), readiness: () => this.#readiness() });
          this.#admin = admin;
          bound.adminPort = await admin.listen(this.#options.adminPort, bindHost);
        }
        return bound;
      },
    });
    // The cluster primary of `workers` serves nothing itself: its address is where the workers listen.
    if (supervisor !== undefined) {
      this.#supervisor = supervisor;
      this.#address = { host: address.host, port: address.port, udpPort: address.udpPort };
    }
    return this.#address as GatewayAddress;
  }

  /** What fw drains on SIGTERM (or the supervisor's word): readiness false, the drain delay, then close(). */
  readonly #stoppable = { shutdown: (): Promise<void> => this.close() };

  /** Binds this process's sockets: the one TCP listener and UDP on its port number. */
  async #listenHere(wanted: number, bindHost: string, udpPort: number | undefined): Promise<GatewayAddress> {
    const streamOn = this.#enabled('http') || this.#enabled('websocket') || this.#enabled('grpc') || this.#enabled('tcp');
    const udpOn = this.#enabled('udp');
    if (this.#enabled('grpc')) this.#grpc.sync();
    // No call should meet "no instance available" just after listen(): wait for discovery's first lists (bounded by its start timeout).
    await this.#dispatcher.resolver?.ready?.();
    const udp = udpOn ? { port: udpPort, bind: (p: number, h: string) => this.#udp.bind(p, h), close: () => this.#udp.close() } : undefined;
    if (streamOn) {
      // The one listener binds UDP on the TCP port's number, trying another pair when an ephemeral twin is taken.
      const bound = await this.#listener.listen(wanted, bindHost, udp);
      this.#address = { host: bindHost, port: bound.port, udpPort: bound.udpPort };
    } else {
      this.#address = { host: bindHost, port: undefined, udpPort: udpOn ? await this.#udp.bind(udpPort ?? wanted, bindHost) : undefined };
    }
    return this.#address;
  }

  /**
   * Graceful shutdown of every protocol: stops accepting, refuses new calls
   * (503 / UNAVAILABLE), lets the calls in flight finish — HTTP answers with
   * `Connection: close`, WebSocket closes with 1001 after its calls, gRPC sends
   * GOAWAY, TCP replies then FINs, UDP replies — and resolves. Past
   * `timeoutMs` (default `shutdownTimeout`, 10 s) it cuts what is left, which
   * aborts the remaining handlers' `signal`, and resolves once they have settled.
   * With `drainDelay`, readiness (`/ready`, gRPC health) turns false first and
   * calls are served as usual for that long before the drain begins. In the
   * primary of `workers`, it drains every worker.
   *
   * @example
   * process.once('SIGTERM', () => void gateway.close({ timeoutMs: 5000 }));
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.#closing === undefined) {
      const shutdown = gracefulShutdown();
      const timeoutMs = shutdown.checkShutdownTimeout(options.timeoutMs) ?? this.#options.shutdownTimeout ?? shutdown.DEFAULT_SHUTDOWN_TIMEOUT;
      const supervisor = this.#supervisor;
      this.#closing = (supervisor !== undefined ? supervisor.close().then(() => {
        this.#address = undefined;
      }) : this.#shutdown(timeoutMs)).finally(() => {
        this.#closing = undefined;
      });
    }
    return this.#closing;
  }

  /** What a drain stops: the transports built so far, plus the gateway's own port when it listens itself. */
  #drainTargets(ownPort: boolean): DrainTargets {
    return { dispatcher: this.#dispatcher, listener: ownPort ? this.#streamListener : undefined, adapters: this.#adapters() };
  }

  /** The transport adapters built so far (each is built on first use). */
  #adapters(): TransportAdapter[] {
    return this.#adapterSet.built();
  }

  async #shutdown(timeoutMs: number): Promise<void> {
    const listening = this.#address !== undefined;
    const delay = listening ? drainDelay(this.#options.drainDelay) : 0;
    if (delay > 0) {
      // The preStop window: load balancers see "not ready" and stop sending while the calls they already sent are served.
      this.#stopping = true;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    this.#stopping = true;
    this.#address = undefined;
    if (listening) await gracefulShutdown().drainGateway(this.#drainTargets(true), timeoutMs);
    const adapters = gracefulShutdown().closeAdapters(this.#adapters());
    const closing = this.#streamListener?.close();
    await adapters;
    await closing;
    this.#dispatcher.setDraining(false);
    this.#stopping = false;
    await this.#admin?.close();
    this.#admin = undefined;
    await this.#monitoring?.close();
    await this.#dispatcher.resolver?.close();
  }

  /**
   * What a host app's `close()` calls (through the get*Config objects): the
   * same drain as `gateway.close()` for the connections the app handed over,
   * once however many configs carry it. The gateway serves again afterwards.
   */
  readonly #drainHosted: HostedDrain = (graceMs) => {
    if (this.#hostedDrain === undefined) {
      this.#hostedDrain = gracefulShutdown()
        .drainGateway(this.#drainTargets(false), graceMs)
        .finally(() => {
          // As gateway.close() does: every adapter's connections end (UDP's socket, bound by the app, is already closed by its drain).
          void gracefulShutdown().closeAdapters(this.#adapters());
          this.#dispatcher.setDraining(false);
          this.#hostedDrain = undefined;
        });
    }
    return this.#hostedDrain;
  };
}

/**
 * Builds a gateway for the listed protocols on one port.
 *
 * @example
 * const gateway = createProtocolGateway({ protocols: ['http', 'websocket', 'grpc', 'udp', 'tcp'], port: 3000 });
 * gateway.addService('Echo', { echo: async (req) => req });
 * await gateway.listen();
 */
export function createProtocolGateway(options: CreateGatewayOptions): ProtocolGateway {
  if (options === null || typeof options !== 'object' || !Array.isArray(options.protocols)) throw new TypeError('createProtocolGateway({protocols, port})');
  const known: Protocol[] = ['http', 'websocket', 'grpc', 'udp', 'tcp'];
  for (const p of options.protocols) if (!known.includes(p)) throw new TypeError(`unknown protocol "${String(p)}"; use ${known.join(', ')}`);
  const { protocols, ...rest } = options;
  return new ProtocolGateway({
    ...rest,
    enableHTTP: protocols.includes('http'),
    enableWebSocket: protocols.includes('websocket'),
    enableGRPC: protocols.includes('grpc'),
    enableUDP: protocols.includes('udp'),
    enableTCP: protocols.includes('tcp'),
  });
}
