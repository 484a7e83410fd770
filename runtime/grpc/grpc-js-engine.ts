/**
 * The fallback server engine (`grpc.engine: 'grpc-js'`): grpc-js's Server,
 * reached through a connection injector and the foreign-streams hook, with
 * fw's framing hooks and request-timeout watch. Where grpc-js's own answer
 * differs from fw's engine, fw answers as its engine does: request bytes
 * that do not decode are INVALID_ARGUMENT (grpc-js: INTERNAL), and a forced
 * shutdown ends each open stream with UNAVAILABLE before grpc-js cuts the
 * connections (grpc-js: a bare cut). The only module of the server side
 * that loads @grpc/grpc-js; server-engine.ts requires it when this engine
 * is chosen.
 */
import * as grpc from '@grpc/grpc-js';
import type { Duplex } from 'node:stream';
import { RejectedPayload } from '../core/json-depth';
import { installFraming } from './compression';
import { drainedStatus, undecodableRequest } from './errors';
import { routeForeignStreams } from './grpc-js-foreign-streams';
import { resolveHttp2Limits, watchRequestTimeouts } from './h2-limits';
import type { ForeignStreamHandler } from './h2/server';
import { toChannelOptions, CHANNEL_OPTION_KEYS, type GrpcTlsOptions } from './options';
import { STATUS_FLUSH_MS, type ServerEngine, type ServerEngineOptions } from './engine-contract';
import type { StreamPortMethod, UnaryPortMethod } from './grpc-call-port';
import { grpcJsStreamHandler, type OpenStreamCalls } from './grpc-js-stream-port';
import { grpcJsUnaryHandler } from './grpc-js-unary-port';

function serverCredentials(tls: GrpcTlsOptions | undefined): grpc.ServerCredentials {
  if (tls === undefined) return grpc.ServerCredentials.createInsecure();
  const pem = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value) : value);
  return grpc.ServerCredentials.createSsl(tls.ca === undefined ? null : pem(tls.ca), [{ cert_chain: pem(tls.cert), private_key: pem(tls.key) }], tls.requireClientCert === true);
}

/**
 * grpc-js answers a deserializer that throws with INTERNAL. A RejectedPayload
 * instead reaches fw's handlers, which answer INVALID_ARGUMENT without
 * calling the user's handler (a request stream ends with it).
 */
function refusingUndecodable(deserialize: (bytes: Buffer) => unknown): (bytes: Buffer) => unknown {
  return (bytes) => {
    try {
      return deserialize(bytes);
    } catch (error) {
      return new RejectedPayload(undecodableRequest(error));
    }
  };
}

export class GrpcJsEngine implements ServerEngine {
  readonly #server: grpc.Server;
  readonly #openStreams: OpenStreamCalls = new Set();
  /** A forced shutdown is letting its statuses leave: grpc-js's own cut waits for the timer. */
  #flushing = false;
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
  addUnary(methods: readonly UnaryPortMethod[]): void {
    this.#add(methods, (method) => grpcJsUnaryHandler(method) as grpc.UntypedHandleCall);
  }
  addStreams(methods: readonly StreamPortMethod[]): void {
    this.#add(methods, (method) => grpcJsStreamHandler(method, this.#openStreams) as grpc.UntypedHandleCall);
  }
  /** One grpc-js service of `methods`, each served through the adapter `handler` builds over grpc-js's call objects. */
  #add<Method extends UnaryPortMethod | StreamPortMethod>(methods: readonly Method[], handler: (method: Method) => grpc.UntypedHandleCall): void {
    const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const method of methods) {
      const kind = 'kind' in method ? method.kind : 'none';
      // Keyed by path: two services may share a method name (reflection's v1 and v1alpha).
      definition[method.path] = {
        path: method.path,
        requestStream: kind === 'client' || kind === 'bidirectional',
        responseStream: kind === 'server' || kind === 'bidirectional',
        requestSerialize: method.requestSerialize,
        requestDeserialize: refusingUndecodable(method.requestDeserialize),
        responseSerialize: method.responseSerialize,
        responseDeserialize: method.responseDeserialize,
        originalName: method.name,
      };
      implementation[method.path] = handler(method);
    }
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
  /**
   * Ends each open stream with UNAVAILABLE (one already answered keeps its
   * status), then lets grpc-js cut every connection once those statuses
   * have left (STATUS_FLUSH_MS later; a connection whose calls are all done
   * closes before, grpc-js's tryShutdown having sent GOAWAY).
   */
  forceShutdown(): void {
    this.#stopWatching();
    this.#stopWatching = () => undefined;
    if (this.#openStreams.size > 0) {
      const drained = drainedStatus();
      for (const call of [...this.#openStreams]) call.end(drained);
      this.#openStreams.clear();
      this.#flushing = true;
      setTimeout(() => this.#server.forceShutdown(), STATUS_FLUSH_MS).unref();
    } else if (!this.#flushing) this.#server.forceShutdown();
  }
  #watch(): void {
    this.#stopWatching();
    this.#stopWatching = watchRequestTimeouts(this.#server, this.#requestTimeout);
  }
}
