/**
 * The two servers that can carry fw's gRPC layer (`grpc.engine`), behind one
 * interface for `server.grpc()` (which listens) and the gateway (which feeds
 * connections from its multiplexed port): fw's node:http2 gRPC server
 * (default), which routes non-gRPC streams (Connect, gRPC-Web over HTTP/2)
 * to the foreign-stream handler itself, or grpc-js's Server
 * (grpc-js-engine.ts, loaded only when chosen).
 */
import type { Duplex } from 'node:stream';
import type { ServerEngine, ServerEngineOptions } from './engine-contract';
import type { StreamPortMethod, UnaryPortMethod } from './grpc-call-port';
import { H2GrpcServer, type ForeignStreamHandler } from './h2/server';
import { serverEngine, type GrpcTlsOptions } from './options';

export type { ForeignStreamHandler } from './h2/server';

export type { ServerEngine, ServerEngineOptions } from './engine-contract';

class H2Engine implements ServerEngine {
  readonly #server: H2GrpcServer;
  constructor(options: ServerEngineOptions, foreign: () => ForeignStreamHandler | undefined) {
    this.#server = new H2GrpcServer(options);
    // Read per stream, so a handler installed later still applies.
    this.#server.foreignStreams = (stream, headers, raw) => foreign()?.(stream, headers, raw) ?? false;
  }
  addUnary(methods: readonly UnaryPortMethod[]): void {
    this.#server.addUnary(methods);
  }
  addStreams(methods: readonly StreamPortMethod[]): void {
    this.#server.addStreams(methods);
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

/** The server `options.engine` chooses; `foreign()` is asked for each non-gRPC HTTP/2 stream. */
export function createServerEngine(options: ServerEngineOptions, foreign: () => ForeignStreamHandler | undefined = () => undefined): ServerEngine {
  if (serverEngine(options) !== 'grpc-js') return new H2Engine(options, foreign);
  // Loaded only when chosen: the default engine never loads @grpc/grpc-js.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { GrpcJsEngine } = require('./grpc-js-engine') as typeof import('./grpc-js-engine');
  return new GrpcJsEngine(options, foreign);
}
