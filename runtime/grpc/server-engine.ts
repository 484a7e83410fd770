/**
 * The two servers that can carry fw's gRPC layer (`grpc.engine`), behind one
 * interface for `server.grpc()` (which listens) and the gateway (which feeds
 * connections from its multiplexed port): fw's node:http2 gRPC server
 * (default), which routes non-gRPC streams (Connect, gRPC-Web over HTTP/2)
 * to the foreign-stream handler itself, or grpc-js's Server, reached
 * through a connection injector and the foreign-streams hook, with fw's
 * framing hooks and request-timeout watch.
 */
import * as grpc from '@grpc/grpc-js';
import type { Duplex } from 'node:stream';
import { installFraming } from './compression';
import { resolveHttp2Limits, watchRequestTimeouts } from './h2-limits';
import { routeForeignStreams } from './grpc-js-foreign-streams';
import { H2GrpcServer, type ForeignStreamHandler } from './h2/server';
import { serverEngine, toChannelOptions, CHANNEL_OPTION_KEYS, type GrpcServerOptions, type GrpcTlsOptions } from './options';

export type { ForeignStreamHandler } from './h2/server';

/** Engine options: the `grpc` options of either server, plus the gateway's one size limit for both directions. */
export type ServerEngineOptions = GrpcServerOptions & { maxMessageSize?: number };

/** What `server.grpc()` and the gateway need of the server under them. */
export interface ServerEngine {
  /** Registers a service in grpc-js's shape (definition + implementation by method name). */
  addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void;
  /** Binds `host:port` (0 = any); resolves the bound port. */
  listen(host: string, port: number, tls: GrpcTlsOptions | undefined): Promise<number>;
  /** Serves an h2c connection accepted elsewhere (the gateway's multiplexed port). */
  inject(socket: Duplex): void;
  /** GOAWAY on every connection; resolves once running calls finish. */
  shutdown(): Promise<void>;
  /** Cancels whatever still runs and closes every connection (idempotent). */
  forceShutdown(): void;
}

class H2Engine implements ServerEngine {
  readonly #server: H2GrpcServer;
  constructor(options: ServerEngineOptions, foreign: () => ForeignStreamHandler | undefined) {
    this.#server = new H2GrpcServer(options);
    // Read per stream, so a handler installed later still applies.
    this.#server.foreignStreams = (stream, headers, raw) => foreign()?.(stream, headers, raw) ?? false;
  }
  addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    this.#server.addService(definition, implementation);
  }
  listen(host: string, port: number, tls: GrpcTlsOptions | undefined): Promise<number> {
    return this.#server.listen(host, port, tls);
  }
  inject(socket: Duplex): void {
    this.#server.injectConnection(socket);
  }
  shutdown(): Promise<void> {
    return this.#server.shutdown();
  }
  forceShutdown(): void {
    this.#server.forceShutdown();
  }
}

function serverCredentials(tls: GrpcTlsOptions | undefined): grpc.ServerCredentials {
  if (tls === undefined) return grpc.ServerCredentials.createInsecure();
  const pem = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value) : value);
  return grpc.ServerCredentials.createSsl(tls.ca === undefined ? null : pem(tls.ca), [{ cert_chain: pem(tls.cert), private_key: pem(tls.key) }], tls.requireClientCert === true);
}

class GrpcJsEngine implements ServerEngine {
  readonly #server: grpc.Server;
  readonly #requestTimeout: number;
  #injector: ReturnType<grpc.Server['createConnectionInjector']> | undefined = undefined;
  #stopWatching: () => void = () => undefined;
  constructor(options: ServerEngineOptions, foreign: () => ForeignStreamHandler | undefined) {
    // fw's framing hooks: response compression and the request's compression flag (compression.ts).
    installFraming();
    this.#requestTimeout = resolveHttp2Limits(options).requestTimeout;
    const channel = toChannelOptions(options);
    if (options.maxMessageSize !== undefined) {
      channel[CHANNEL_OPTION_KEYS.maxReceiveMessageLength] = options.maxMessageSize;
      channel[CHANNEL_OPTION_KEYS.maxSendMessageLength] = options.maxMessageSize;
    }
    this.#server = new grpc.Server(channel);
    routeForeignStreams(this.#server, foreign);
  }
  addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    this.#server.addService(definition, implementation);
  }
  async listen(host: string, port: number, tls: GrpcTlsOptions | undefined): Promise<number> {
    const target = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const bound = await new Promise<number>((resolve, reject) => {
      this.#server.bindAsync(target, serverCredentials(tls), (error, value) => (error ? reject(error) : resolve(value)));
    });
    this.#watch();
    return bound;
  }
  inject(socket: Duplex): void {
    if (this.#injector === undefined) {
      this.#injector = this.#server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
      this.#watch();
    }
    this.#injector.injectConnection(socket);
  }
  shutdown(): Promise<void> {
    return new Promise((resolve) => this.#server.tryShutdown(() => resolve()));
  }
  forceShutdown(): void {
    this.#stopWatching();
    this.#stopWatching = () => undefined;
    this.#server.forceShutdown();
  }
  #watch(): void {
    this.#stopWatching();
    this.#stopWatching = watchRequestTimeouts(this.#server, this.#requestTimeout);
  }
}

/** The server `options.engine` chooses; `foreign()` is asked for each non-gRPC HTTP/2 stream. */
export function createServerEngine(options: ServerEngineOptions, foreign: () => ForeignStreamHandler | undefined = () => undefined): ServerEngine {
  return serverEngine(options) === 'grpc-js' ? new GrpcJsEngine(options, foreign) : new H2Engine(options, foreign);
}
