/**
 * The gRPC application behind `server.grpc()` (spec 4.1, 4.6–4.8): register
 * services in any of the three forms, add middleware, configure, listen (on
 * fw's node:http2 gRPC server, or grpc-js's; server-engine.ts), alone or as
 * `workers` processes sharing the port (runtime/workers/production-listen.ts,
 * the same rule as the gateway's and `server.http()`'s), and shut down
 * gracefully: health NOT_SERVING for the drain delay, then the drain.
 */
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from './reflection-service';
import { pinTickObjectShape } from '../core/tick-object-pin';
import { isServiceDescriptor, type ServiceDescriptor } from '../rpc/descriptor';
import type { UnexpectedErrorListener } from './errors';
import { bindHealth, HEALTH_SERVICE_NAME, HealthState, type ServingStatus } from './health';
import type { ServiceBinding } from './method-binding';
import { serverEngine, toChannelOptions, toCompressionSettings, type CompressionSettings, type GrpcApplicationOptions } from './options';
import { createServerEngine, type ServerEngine } from './server-engine';
import { CallPipeline, type GrpcMiddleware } from './pipeline';
import { hostService, registerHostedService, type HostedService } from './registry';
import type { DescriptorOptions } from './request-checks';
import { addToServer } from './serve-binding';
import { checkProductionOptions, drainDelay, envHost, envPort } from '../workers/production-options';
import { listenInProduction } from '../workers/production-listen';
import type { WorkerSupervisor } from '../workers/supervisor';
import {
  bindDescriptor,
  bindInline,
  bindProto,
  isProtoRegistration,
  type DescriptorHandlers,
  type InlineServiceDefinition,
  type ProtoServiceRegistration,
} from './service-forms';

/** Where `listen()` bound. */
export interface GrpcListenAddress {
  host: string;
  port: number;
}

/**
 * A gRPC server application.
 *
 * @example
 * import { server } from 'fw';
 * import { GrpcError, GrpcStatus } from 'fw/grpc';
 * const app = server.grpc().withOptions({ grpc: { maxReceiveMessageLength: 4 * 1024 * 1024 } });
 * app.addService({
 *   name: 'Greeter',
 *   methods: {
 *     SayHello: { handler: async (request: { name?: string }) => {
 *       if (!request.name) throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, 'name is required');
 *       return { message: `Hello ${request.name}` };
 *     } },
 *   },
 * });
 * const { port } = await app.listen(50051);
 */
export interface GrpcApplication {
  /** Merges options (spec 4.8); throws a RangeError naming a bad option. */
  withOptions(options: GrpcApplicationOptions): GrpcApplication;
  /** Inline `{name, methods}` (JSON codec) or `{definition, implementation}` (loadProtoDefinition). */
  addService(definition: InlineServiceDefinition | ProtoServiceRegistration): GrpcApplication;
  /** A generated descriptor (`UserServiceDescriptor`) with its camelCase handlers; requests are checked against their buf.validate rules. */
  addService(descriptor: ServiceDescriptor, handlers: DescriptorHandlers, options?: DescriptorOptions): GrpcApplication;
  /** Adds middleware, run in registration order around every call except health checks. */
  use(middleware: GrpcMiddleware): GrpcApplication;
  /**
   * Starts serving; the port argument wins over `withOptions({port})`, then
   * `PORT`; 0 picks a free port. With `workers`, the process becomes the
   * supervisor of that many worker processes sharing the port.
   */
  listen(port?: number, hostname?: string): Promise<GrpcListenAddress>;
  /**
   * Stops accepting calls (GOAWAY), waits up to `timeoutMs` (default
   * `grpc.shutdownTimeoutMs`, 10 s) for running ones, then cancels the rest
   * (their `signal` aborts) and resolves once every handler has settled.
   * With `drainDelay`, health answers NOT_SERVING first and calls are served
   * as usual for that long before the drain begins. In the primary of
   * `workers`, it drains every worker.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
  /** Sets the health status of one service (full or short name), or of the whole server with `''`. */
  setServingStatus(service: string, status: ServingStatus): GrpcApplication;
  /** Serves grpc.reflection for every proto-defined service (same as `withOptions({grpc: {reflection: true}})`). */
  enableReflection(): GrpcApplication;
  /** Receives errors that reached callers as a generic INTERNAL; default logs them to stderr. */
  onUnexpectedError(listener: UnexpectedErrorListener): GrpcApplication;
  /** Bound port once listening, else undefined. */
  readonly port: number | undefined;
  /** Fully-qualified names of the registered services (health included). */
  serviceNames(): string[];
  /** The registered service called `name`, for the in-process test client. */
  findService(name: string): HostedService | undefined;
}

/** `close()`'s wait for running calls when neither it nor `grpc.shutdownTimeoutMs` says (ms). */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** How long `close()` waits, after cancelling what was left, for the connections to close (ms). */
const CONNECTIONS_CLOSE_MS = 1_000;

const defaultUnexpected: UnexpectedErrorListener = (error, method) => {
  console.error(`[fw/grpc] ${method} failed with an unexpected error (sent INTERNAL):`, error);
};

class GrpcApplicationImpl implements GrpcApplication {
  #options: GrpcApplicationOptions = {};
  readonly #pipeline = new CallPipeline(defaultUnexpected);
  readonly #services = new Map<string, HostedService>();
  readonly #health = new HealthState();
  #server: ServerEngine | undefined;
  #port: number | undefined;
  #listening = false;
  /** In the cluster primary of `workers`: the supervisor of the workers that serve. */
  #supervisor: WorkerSupervisor | undefined;
  #closing: Promise<void> | undefined;

  constructor() {
    const health = hostService(bindHealth(this.#health, () => this.#options.grpc?.healthWatchIntervalMs ?? 5000), this.#pipeline);
    this.#services.set(HEALTH_SERVICE_NAME, health);
    registerHostedService(health);
  }

  withOptions(options: GrpcApplicationOptions): GrpcApplication {
    const merged: GrpcApplicationOptions = { ...this.#options, ...options, grpc: { ...this.#options.grpc, ...options.grpc } };
    toChannelOptions(merged.grpc);
    toCompressionSettings(merged.grpc);
    serverEngine(merged.grpc);
    checkProductionOptions(merged);
    this.#options = merged;
    return this;
  }

  addService(definition: InlineServiceDefinition | ProtoServiceRegistration | ServiceDescriptor, handlers?: DescriptorHandlers, options?: DescriptorOptions): GrpcApplication {
    let binding: ServiceBinding;
    if (isServiceDescriptor(definition)) binding = bindDescriptor(definition, handlers ?? {}, options);
    else if (isProtoRegistration(definition)) binding = bindProto(definition);
    else if (typeof definition === 'object' && definition !== null && 'methods' in definition) binding = bindInline(definition);
    else throw new TypeError('addService expects {name, methods}, {definition, implementation} or a service descriptor with handlers');
    if (this.#services.has(binding.name)) throw new Error(`addService: service ${binding.name} is already registered`);
    if (this.#server !== undefined) throw new Error(`addService(${binding.name}): register services before listen()`);
    const entry = hostService(binding, this.#pipeline);
    this.#services.set(binding.name, entry);
    registerHostedService(entry);
    this.#health.set(binding.name, 'SERVING');
    return this;
  }

  use(middleware: GrpcMiddleware): GrpcApplication {
    this.#pipeline.use(middleware);
    return this;
  }

  async listen(port?: number, hostname?: string): Promise<GrpcListenAddress> {
    if (this.#server !== undefined || this.#supervisor !== undefined) throw new Error('listen(): already listening');
    const host = hostname ?? this.#options.hostname ?? envHost('0.0.0.0');
    const requested = port ?? this.#options.port ?? envPort(0);
    if (!Number.isInteger(requested) || requested < 0 || requested > 65535) throw new RangeError(`listen(): port must be an integer 0 to 65535, got ${String(requested)}`);
    const { address, supervisor } = await listenInProduction({
      options: this.#options,
      shutdownTimeoutMs: () => this.#shutdownTimeoutMs(),
      stoppable: this.#stoppable,
      // grpc-js's server binds without reusePort: its workers share the port through node:cluster.
      clusterShared: serverEngine(this.#options.grpc) === 'grpc-js',
      bind: async (assigned) => ({ host, port: await this.#listenHere(host, assigned.port ?? requested), udpPort: undefined }),
    });
    // The cluster primary of `workers` serves nothing itself: its port is the one its workers share.
    if (supervisor !== undefined) {
      this.#supervisor = supervisor;
      this.#port = address.port;
      this.#listening = true;
    }
    return { host, port: this.#port as number };
  }

  /** What fw drains on SIGTERM/SIGINT (and, in a worker, on the supervisor's word) before the process exits. */
  readonly #stoppable = { shutdown: (): Promise<void> => this.close() };

  /** Binds this process's server; resolves its port. */
  async #listenHere(host: string, requested: number): Promise<number> {
    pinTickObjectShape();
    const grpcOptions = this.#options.grpc ?? {};
    const compression = toCompressionSettings(grpcOptions);
    const engine = createServerEngine(grpcOptions);
    for (const entry of this.#services.values()) addToServer(engine, entry.service, this.#pipeline, compression);
    // Reflection registers one bidi method per version, served through the engine's streaming port.
    if (grpcOptions.reflection === true) new ReflectionService(mergedPackageDefinitions(this.#services.values())).addToServer(engine);
    this.#server = engine;
    this.#health.restart();
    try {
      this.#port = await engine.listen(host, requested, grpcOptions.tls);
    } catch (error) {
      this.#server = undefined;
      engine.forceShutdown();
      throw error;
    }
    this.#listening = true;
    return this.#port;
  }

  #shutdownTimeoutMs(): number {
    return this.#options.grpc?.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  }

  close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.#closing ??= this.#shutdown(options).finally(() => {
      this.#closing = undefined;
    });
    return this.#closing;
  }

  async #shutdown(options: { timeoutMs?: number }): Promise<void> {
    const supervisor = this.#supervisor;
    if (supervisor !== undefined) {
      // The primary: every worker drains (readiness false, the drain delay, the drain) and exits.
      await supervisor.close();
      this.#supervisor = undefined;
      this.#listening = false;
      this.#port = undefined;
      return;
    }
    const server = this.#server;
    if (server === undefined) return;
    const delay = drainDelay(this.#options.drainDelay);
    if (delay > 0) {
      // The preStop window: health answers NOT_SERVING, so probes and load balancers stop sending, while calls are served as usual.
      this.#health.notServing();
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    this.#health.shutdown();
    const timeoutMs = options.timeoutMs ?? this.#shutdownTimeoutMs();
    let timer: NodeJS.Timeout | undefined;
    const closed = server.shutdown();
    await Promise.race([
      closed,
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          // Cancelling the calls aborts their handlers' signals; close() still waits for the handlers below.
          server.forceShutdown();
          resolve();
        }, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    await this.#pipeline.idle();
    server.forceShutdown();
    // The statuses a forced shutdown wrote leave before the connections close: wait for that, so a
    // process that exits next (SIGTERM, a worker told to stop) does not cut them off. Bounded.
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CONNECTIONS_CLOSE_MS).unref())]);
    this.#server = undefined;
    this.#listening = false;
  }

  setServingStatus(service: string, status: ServingStatus): GrpcApplication {
    const entry = service === '' ? undefined : (this.#services.get(service) ?? [...this.#services.values()].find((s) => s.service.name.endsWith(`.${service}`)));
    this.#health.set(entry?.service.name ?? service, status);
    return this;
  }

  enableReflection(): GrpcApplication {
    return this.withOptions({ grpc: { reflection: true } });
  }

  onUnexpectedError(listener: UnexpectedErrorListener): GrpcApplication {
    this.#pipeline.onUnexpected = listener;
    return this;
  }

  get port(): number | undefined {
    return this.#listening ? this.#port : undefined;
  }

  serviceNames(): string[] {
    return [...this.#services.keys()];
  }

  findService(name: string): HostedService | undefined {
    return this.#services.get(name) ?? [...this.#services.values()].find((s) => s.service.name.endsWith(`.${name}`));
  }
}

function mergedPackageDefinitions(services: Iterable<HostedService>): PackageDefinition {
  const merged: PackageDefinition = {};
  for (const entry of services) if (entry.service.packageDefinition !== undefined) Object.assign(merged, entry.service.packageDefinition);
  return merged;
}

/** A new gRPC application; what `server.grpc()` returns. */
export function createGrpcApplication(): GrpcApplication {
  return new GrpcApplicationImpl();
}

