/**
 * The fallback server engine (`grpc.engine: 'grpc-js'`): grpc-js's Server,
 * reached through a connection injector and the foreign-streams hook, with
 * fw's framing hooks and request-timeout watch. The only module of the
 * server side that loads @grpc/grpc-js; server-engine.ts requires it when
 * this engine is chosen.
 */
import * as grpc from '@grpc/grpc-js';
import type { Duplex } from 'node:stream';
import { installFraming } from './compression';
import { routeForeignStreams } from './grpc-js-foreign-streams';
import { resolveHttp2Limits, watchRequestTimeouts } from './h2-limits';
import type { ForeignStreamHandler } from './h2/server';
import { toChannelOptions, CHANNEL_OPTION_KEYS, type GrpcTlsOptions } from './options';
import type { ServerEngine, ServerEngineOptions } from './engine-contract';
import type { StreamPortMethod, UnaryPortMethod } from './grpc-call-port';
import { grpcJsStreamHandler } from './grpc-js-stream-port';
import { grpcJsUnaryHandler } from './grpc-js-unary-port';

function serverCredentials(tls: GrpcTlsOptions | undefined): grpc.ServerCredentials {
  if (tls === undefined) return grpc.ServerCredentials.createInsecure();
  const pem = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value) : value);
  return grpc.ServerCredentials.createSsl(tls.ca === undefined ? null : pem(tls.ca), [{ cert_chain: pem(tls.cert), private_key: pem(tls.key) }], tls.requireClientCert === true);
}

export class GrpcJsEngine implements ServerEngine {
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
  addUnary(methods: readonly UnaryPortMethod[]): void {
    this.#add(methods, (method) => grpcJsUnaryHandler(method) as grpc.UntypedHandleCall);
  }
  addStreams(methods: readonly StreamPortMethod[]): void {
    this.#add(methods, (method) => grpcJsStreamHandler(method) as grpc.UntypedHandleCall);
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
        requestDeserialize: method.requestDeserialize,
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
