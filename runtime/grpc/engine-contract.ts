/**
 * What `server.grpc()` and the gateway need of the gRPC server under them,
 * whichever engine it is (server-engine.ts chooses one).
 */
import type { Duplex } from 'node:stream';
import type { StreamPortMethod, UnaryPortMethod } from './grpc-call-port';
import type { GrpcServerOptions, GrpcTlsOptions } from './options';

/** How long a forced shutdown lets the statuses it wrote leave before the connections are cut (ms), on either engine. */
export const STATUS_FLUSH_MS = 250;

/** Engine options: the `grpc` options of either server, plus the gateway's one size limit for both directions. */
export type ServerEngineOptions = GrpcServerOptions & { maxMessageSize?: number };

/** What `server.grpc()` and the gateway need of the server under them. */
export interface ServerEngine {
  /** Registers unary methods served through fw's call port (grpc-call-port.ts). */
  addUnary(methods: readonly UnaryPortMethod[]): void;
  /** Registers streaming methods served through fw's streaming ports (grpc-call-port.ts). */
  addStreams(methods: readonly StreamPortMethod[]): void;
  /** Binds `host:port` (0 = any); resolves the bound port. */
  listen(host: string, port: number, tls: GrpcTlsOptions | undefined): Promise<number>;
  /** Serves an h2c connection accepted elsewhere (the gateway's multiplexed port). */
  inject(socket: Duplex): void;
  /** GOAWAY on every connection; resolves once running calls finish. */
  shutdown(): Promise<void>;
  /**
   * Cancels whatever still runs and closes every connection (idempotent). A
   * stream still open first ends with UNAVAILABLE (errors.ts drainedStatus);
   * its connection is cut once that status has left, at most STATUS_FLUSH_MS later.
   */
  forceShutdown(): void;
}

