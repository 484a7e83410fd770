/**
 * The gRPC transport: a gRPC server (fw's node:http2 one, or grpc-js's as
 * the fallback; grpc/server-engine.ts) whose services are built from the
 * registry (and configureGRPC proto files), fed connections by the mux so
 * gRPC shares the gateway's one port. Every method is registered with the
 * engine as a serve function over its call port (serve-route.ts): each call
 * is read (call-reader.ts), dispatched through the call core, and answered
 * through a GrpcReplySink (reply-sink.ts) — errors as gRPC statuses with the
 * gateway's string code in the `x-error-code` trailer, the trace id in the
 * trace-id response header (monitoring's `correlationHeader`, default `x-trace-id`).
 */
import type { Duplex } from 'node:stream';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '../../grpc/reflection-service';
import type { GatewayCore } from '../gateway-core';
import { nextConnectionId } from '../gateway-core';
import type { ServiceRegistry } from '../../rpc/registry';
import type { StreamPortMethod, UnaryPortMethod } from '../../grpc/grpc-call-port';
import { reflectionEntry } from '../../grpc/reflection-entry';
import type { Http2LimitOptions } from '../../grpc/h2-limits';
import type { GrpcServerEngine } from '../../grpc/options';
import { createServerEngine, type ForeignStreamHandler, type ServerEngine } from '../../grpc/server-engine';
import { bindHealth, HealthState } from '../../grpc/health';
import { CallPipeline } from '../../grpc/pipeline';
import { addToServer } from '../../grpc/serve-binding';
import { GrpcCallReader } from './call-reader';
import { protoTables, registryTables, type GrpcGatewayConfig, type GrpcServiceTable } from './method-table';
import { serveStreamRoute, serveUnaryRoute } from './serve-route';
import type { TransportAdapter } from '../transport-adapter';

/** The constructor's `grpc` options. */
export interface GrpcGatewayOptions extends Http2LimitOptions {
  /** Serve grpc.reflection.v1(alpha) for every service with descriptors: generated ones and configureGRPC proto files. */
  reflection?: boolean;
  /** Largest message in either direction; default 4 MiB. */
  maxMessageSize?: number;
  /** `'node-http2'` (default): fw's gRPC server on Node's HTTP/2; `'grpc-js'`: grpc-js's Server, the fallback (docs/grpc.md "Server engine"). */
  engine?: GrpcServerEngine;
  /** How often a grpc.health.v1 Watch stream repeats the status when nothing changed (ms); default 5000, as on server.grpc(). */
  healthWatchIntervalMs?: number;
}

/** The gRPC transport: a gRPC server fed by the mux, one dispatch per call. */
export class GrpcTransport implements TransportAdapter {
  readonly transport = 'grpc' as const;
  readonly #core: GatewayCore;
  readonly #registry: ServiceRegistry;
  readonly #options: () => GrpcGatewayOptions;
  readonly #config: () => GrpcGatewayConfig;
  #server: ServerEngine | undefined = undefined;
  #registered = new Set<string>();
  #version = -1;
  #configRef: GrpcGatewayConfig | undefined = undefined;
  /** Proto files' package definition (configureGRPC), kept for reflection. */
  #protoPackages: PackageDefinition = {};
  /** The current reflection methods by path; swapped when services are added. */
  #reflection: Map<string, StreamPortMethod> | undefined = undefined;
  #foreign: ForeignStreamHandler | undefined = undefined;
  /** grpc.health.v1 on the gateway port: every hosted service, NOT_SERVING once a drain begins or while discovery is not ready. */
  readonly #health: HealthState;
  #healthServed = false;

  constructor(core: GatewayCore, registry: ServiceRegistry, options: () => GrpcGatewayOptions, config: () => GrpcGatewayConfig) {
    this.#core = core;
    this.#registry = registry;
    this.#options = options;
    this.#config = config;
    this.#health = new HealthState(() => !core.stopping && core.dispatcher.resolver?.status?.()?.ready !== false);
  }

  /** The gRPC server (created on first use, with the engine the options choose). */
  get server(): ServerEngine {
    if (this.#server === undefined) this.#server = createServerEngine(this.#options(), () => this.#foreign);
    return this.#server;
  }

  /** Non-gRPC HTTP/2 streams (Connect, gRPC-Web) go to `handler` before the gRPC server would refuse them. */
  handleForeignStreams(handler: ForeignStreamHandler | undefined): void {
    this.#foreign = handler;
  }

  /** Registers services added since the last sync (grpc-js accepts services on a running server). */
  sync(): void {
    const config = this.#config();
    if (this.#version === this.#registry.version && this.#configRef === config) return;
    const server = this.server;
    const fromProto = this.#configRef !== config ? protoTables(config) : { tables: [], packageDefinition: undefined };
    const tables: GrpcServiceTable[] = [...registryTables(this.#registry), ...fromProto.tables];
    for (const table of tables) {
      const fresh = [...table.routes.values()].filter((r) => !this.#registered.has(r.definition.path));
      if (fresh.length === 0) continue;
      const unary: UnaryPortMethod[] = [];
      const streams: StreamPortMethod[] = [];
      for (const route of fresh) {
        const key = route.definition.path;
        this.#registered.add(key);
        const d = route.definition;
        const codecs = { path: key, name: key, requestSerialize: d.requestSerialize, requestDeserialize: d.requestDeserialize, responseSerialize: d.responseSerialize, responseDeserialize: d.responseDeserialize };
        const reader = new GrpcCallReader(this.#core, route, this.#config);
        if (route.streaming === 'none') unary.push({ ...codecs, serve: serveUnaryRoute(this.#core, reader) });
        else streams.push({ ...codecs, ...serveStreamRoute(this.#core, reader, route.streaming) });
      }
      if (unary.length > 0) server.addUnary(unary);
      if (streams.length > 0) server.addStreams(streams);
    }
    for (const service of this.#registry.services()) {
      this.#health.set(service.name, 'SERVING');
      if (service.descriptor !== undefined) this.#health.set(service.descriptor.typeName, 'SERVING');
    }
    if (!this.#healthServed) {
      // Probes need no credentials: health skips the interceptors (as on server.grpc()).
      addToServer(server, bindHealth(this.#health, () => this.#options().healthWatchIntervalMs ?? 5000), new CallPipeline(() => undefined), undefined);
      this.#healthServed = true;
    }
    if (fromProto.packageDefinition !== undefined) this.#protoPackages = fromProto.packageDefinition;
    if (this.#options().reflection === true) this.#syncReflection(server);
    this.#version = this.#registry.version;
    this.#configRef = config;
  }

  /**
   * Reflection over everything served now. grpc-js takes a service once, and
   * @grpc/reflection indexes its files once, so the reflection methods are
   * registered once and call whichever index the latest sync built.
   */
  #syncReflection(server: ServerEngine): void {
    const packages: PackageDefinition = { ...this.#protoPackages };
    for (const service of this.#registry.services()) {
      const entry = service.descriptor === undefined ? undefined : reflectionEntry(service.descriptor);
      if (entry !== undefined) Object.assign(packages, entry);
    }
    const methods = new Map<string, StreamPortMethod>();
    new ReflectionService(packages).addToServer({ addStreams: (added) => added.forEach((method) => methods.set(method.path, method)) });
    const first = this.#reflection === undefined;
    this.#reflection = methods;
    if (!first) return;
    // Registered once; each call runs the method of the latest index.
    server.addStreams(
      [...methods.values()].map((method): StreamPortMethod => ({
        ...method,
        kind: 'bidirectional',
        serve: (port) => {
          const current = this.#reflection?.get(method.path);
          if (current?.kind === 'bidirectional') current.serve(port);
        },
      })),
    );
  }

  /** Hands an h2c connection (already sniffed by the mux) to the gRPC server. Do not resume it afterwards. */
  inject(socket: Duplex): void {
    this.sync();
    if (!this.#core.dispatcher.draining) this.#health.restart();
    const core = this.#core;
    if (core.observed) {
      const connectionId = nextConnectionId('grpc');
      const opened = Date.now();
      core.emit({ type: 'connection-open', protocol: 'grpc', connectionId });
      socket.once('close', () => core.emit({ type: 'connection-close', protocol: 'grpc', connectionId, durationMs: Date.now() - opened }));
    }
    this.server.inject(socket);
  }

  /**
   * Graceful stop: GOAWAY on every connection, running calls finish, then
   * resolves. New streams are refused.
   */
  drain(): Promise<void> {
    // Probes see NOT_SERVING as soon as close() begins; Watch streams get it, then end.
    this.#health.shutdown();
    return this.#server === undefined ? Promise.resolve() : this.#server.shutdown();
  }

  /** Stops serving: finishes nothing, closes every session. */
  close(): void {
    const server = this.#server;
    this.#server = undefined;
    this.#registered.clear();
    this.#version = -1;
    this.#configRef = undefined;
    this.#reflection = undefined;
    this.#healthServed = false;
    server?.forceShutdown();
  }
}
