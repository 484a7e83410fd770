/**
 * The server under the gateway's gRPC transport, fed connections by the mux:
 * fw's node:http2 gRPC server (default), which routes non-gRPC streams
 * (Connect, gRPC-Web over HTTP/2) to the foreign-stream handler itself, or
 * grpc-js's Server (`grpc.engine: 'grpc-js'`), reached through a connection
 * injector and the foreign-streams hook.
 */
import * as grpc from '@grpc/grpc-js';
import type { Duplex } from 'node:stream';
import { installFraming } from '../../grpc/compression';
import { http2ChannelOptions, resolveHttp2Limits, watchRequestTimeouts, type Http2LimitOptions } from '../../grpc/h2-limits';
import { H2GrpcServer, type ForeignStreamHandler } from '../../grpc/h2/server';
import { serverEngine, type GrpcServerEngine } from '../../grpc/options';
import { routeForeignStreams } from './foreign-streams';

export type { ForeignStreamHandler } from '../../grpc/h2/server';

/** The engine options of the gateway's `grpc` block. */
export interface GatewayEngineOptions extends Http2LimitOptions {
  /** Largest message in either direction; default 4 MiB. */
  maxMessageSize?: number;
  /** `'node-http2'` (default): fw's gRPC server on Node's HTTP/2; `'grpc-js'`: grpc-js's Server, the fallback. */
  engine?: GrpcServerEngine;
}

/** What the transport needs of its server. */
export interface GatewayGrpcServer {
  addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void;
  /** Serves an h2c connection (already sniffed by the mux). */
  inject(socket: Duplex): void;
  /** GOAWAY on every connection; resolves once running calls finish. */
  drain(): Promise<void>;
  /** Closes every connection now. */
  close(): void;
}

class H2Engine implements GatewayGrpcServer {
  readonly #server: H2GrpcServer;
  constructor(options: GatewayEngineOptions, foreign: () => ForeignStreamHandler | undefined) {
    this.#server = new H2GrpcServer(options);
    // Read per stream, so a handler installed later still applies.
    this.#server.foreignStreams = (stream, headers, raw) => foreign()?.(stream, headers, raw) ?? false;
  }
  addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    this.#server.addService(definition, implementation);
  }
  inject(socket: Duplex): void {
    this.#server.injectConnection(socket);
  }
  drain(): Promise<void> {
    return this.#server.shutdown();
  }
  close(): void {
    this.#server.forceShutdown();
  }
}

class GrpcJsEngine implements GatewayGrpcServer {
  readonly #server: grpc.Server;
  readonly #requestTimeout: number;
  #injector: ReturnType<grpc.Server['createConnectionInjector']> | undefined = undefined;
  #stopWatching: () => void = () => undefined;
  constructor(options: GatewayEngineOptions, foreign: () => ForeignStreamHandler | undefined) {
    const max = options.maxMessageSize ?? 4 << 20;
    // fw's framing hooks: per-call response compression and the request's compression flag (runtime/grpc/compression.ts).
    installFraming();
    const limits = resolveHttp2Limits(options);
    this.#requestTimeout = limits.requestTimeout;
    this.#server = new grpc.Server({ 'grpc.max_receive_message_length': max, 'grpc.max_send_message_length': max, ...http2ChannelOptions(limits) });
    routeForeignStreams(this.#server, foreign);
  }
  addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    this.#server.addService(definition, implementation);
  }
  inject(socket: Duplex): void {
    if (this.#injector === undefined) {
      this.#injector = this.#server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
      this.#stopWatching = watchRequestTimeouts(this.#server, this.#requestTimeout);
    }
    this.#injector.injectConnection(socket);
  }
  drain(): Promise<void> {
    return new Promise((resolve) => this.#server.tryShutdown(() => resolve()));
  }
  close(): void {
    this.#stopWatching();
    this.#stopWatching = () => undefined;
    this.#server.forceShutdown();
  }
}

/** The server `options.engine` chooses. */
export function createGatewayGrpcServer(options: GatewayEngineOptions, foreign: () => ForeignStreamHandler | undefined): GatewayGrpcServer {
  return serverEngine(options) === 'grpc-js' ? new GrpcJsEngine(options, foreign) : new H2Engine(options, foreign);
}
