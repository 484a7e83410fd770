/**
 * `createGrpcTestClient(serviceName)` (spec 4.9), or `createGrpcTestClient(Descriptor)`
 * for a client typed from generated code: calls a registered gRPC
 * service in process — no socket — through the same middleware, the same
 * codecs (every message is encoded and decoded, so what a handler sees is what
 * it would see over the wire) and the same error translation as the server.
 *
 * Which app: by default the application the service was most recently
 * registered on (`addService` records it process-wide, under its full and
 * short name); pass `{app}` to pick one explicitly.
 */
import { EventEmitter } from 'node:events';
import type { MetadataRecord } from '../core/call-metadata';
import type { PartialMessage } from '../core/partial-message';
import type { MethodDescriptor, ServiceDescriptor } from '../rpc/descriptor';
import type { GrpcApplication } from '../grpc/application';
import { GrpcCall, type CallSource } from '../grpc/call';
import { GrpcError, GENERIC_INTERNAL_MESSAGE, metadataToRecord, recordToMetadata } from '../grpc/errors';
import { isReadableMetadata, MetadataMap, type OutgoingMetadata, type ReadableMetadata } from '../grpc/metadata-map';
import { GrpcStatus } from '../core/status';
import type { MethodBinding } from '../grpc/method-binding';
import type { CallPipeline } from '../grpc/pipeline';
import { findHostedService, type HostedService } from '../grpc/registry';
import { iteratorOf } from '../grpc/server-handlers';

/** Per-call options of the test client (same as the network client's). */
export interface GrpcTestCallOptions {
  metadata?: MetadataRecord;
  /** Absolute deadline, or milliseconds from now: reaches the handler as `signal`. */
  deadline?: Date | number;
  signal?: AbortSignal;
  /** Receives the response headers the handler set (as the network client's `onHeader`). */
  onHeader?: (headers: MetadataRecord) => void;
  /** Receives the trailers when the call ends, on success and on error. */
  onTrailer?: (trailers: MetadataRecord) => void;
}

/** Options of `createGrpcTestClient()`. */
export interface GrpcTestClientOptions {
  /** The application to call; default: where `serviceName` was last registered. */
  app?: GrpcApplication;
  /** What `call.getPeer()` returns; default `127.0.0.1:0`. */
  peer?: string;
  /** Metadata sent with every call (per-call metadata is added to it). */
  metadata?: MetadataRecord;
}

/** An untyped test client: PascalCase method names, `unknown` in and out. */
export type UntypedGrpcTestClient = Record<string, (input: unknown, options?: GrpcTestCallOptions) => unknown>;

/** Requests a streaming call takes: any (async) iterable of partial messages. */
type RequestStream<Req> = AsyncIterable<PartialMessage<Req>> | Iterable<PartialMessage<Req>>;

/** The test-client method of one method descriptor, by its streaming kind. */
type GrpcTestMethod<D> =
  D extends MethodDescriptor<infer Req, infer Res>
    ? D extends { readonly streaming: 'server' }
      ? (request: PartialMessage<Req>, options?: GrpcTestCallOptions) => AsyncIterable<Res>
      : D extends { readonly streaming: 'client' }
        ? (requests: RequestStream<Req>, options?: GrpcTestCallOptions) => Promise<Res>
        : D extends { readonly streaming: 'bidirectional' }
          ? (requests: RequestStream<Req>, options?: GrpcTestCallOptions) => AsyncIterable<Res>
          : (request: PartialMessage<Req>, options?: GrpcTestCallOptions) => Promise<Res>
    : never;

/** The typed in-process client of a generated descriptor: the spec's PascalCase RPC names. */
export type GrpcTestClient<M extends Record<string, MethodDescriptor>> = { [K in keyof M]: GrpcTestMethod<M[K]> };

/**
 * Calls a registered service in process. Given the generated descriptor,
 * the client is typed from it; given a name (full `user.UserService` or
 * short), its type is the optional type argument.
 * @example
 * import { createGrpcTestClient } from 'fw/testing';
 * import { UserServiceDescriptor } from '../generated/user.fw';
 * const client = createGrpcTestClient(UserServiceDescriptor);
 * await expect(client.GetUser({ id: 'missing' })).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
 */
export function createGrpcTestClient<M extends Record<string, MethodDescriptor>>(service: ServiceDescriptor<M>, options?: GrpcTestClientOptions): GrpcTestClient<M>;
export function createGrpcTestClient<T extends object = UntypedGrpcTestClient>(serviceName: string, options?: GrpcTestClientOptions): T;
export function createGrpcTestClient(service: string | ServiceDescriptor, options: GrpcTestClientOptions = {}): object {
  const serviceName = typeof service === 'string' ? service : service.typeName;
  const hosted: HostedService | undefined = options.app !== undefined ? options.app.findService(serviceName) : findHostedService(serviceName);
  if (hosted === undefined) throw new Error(`createGrpcTestClient: no registered service named ${serviceName}`);
  const client: Record<string, unknown> = {};
  for (const binding of hosted.service.methods) client[binding.method] = caller(binding, hosted.pipeline, options);
  return client;
}

class InProcessSource implements CallSource {
  readonly metadata: MetadataMap;
  readonly #peer: string;
  readonly #deadline: number;
  readonly #events = new EventEmitter();
  #cancelled = false;
  /** Why the call ended early: CANCELLED or DEADLINE_EXCEEDED. */
  reason: GrpcError | undefined = undefined;
  /** The response headers the handler sent, if any. */
  headers: ReadableMetadata | undefined = undefined;

  sendMetadata(metadata: OutgoingMetadata): void {
    // fw's own call controls send a MetadataMap, which is readable too.
    if (isReadableMetadata(metadata)) this.headers ??= metadata;
  }

  constructor(metadata: MetadataMap, peer: string, deadline: number) {
    this.metadata = metadata;
    this.#peer = peer;
    this.#deadline = deadline;
  }
  getPeer(): string {
    return this.#peer;
  }
  // The test client enforces the deadline itself (one timer → source.cancel), so the
  // handler's signal and the caller's DEADLINE_EXCEEDED can never disagree.
  getDeadline(): number {
    return Infinity;
  }
  get deadline(): number {
    return this.#deadline;
  }
  once(event: 'cancelled', listener: () => void): this {
    this.#events.once(event, listener);
    return this;
  }
  get cancelled(): boolean {
    return this.#cancelled;
  }
  cancel(reason = new GrpcError(GrpcStatus.CANCELLED, 'Call cancelled')): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.reason = reason;
    this.#events.emit('cancelled');
  }

  /** Rejects with the reason once the call is cancelled or expires. */
  ended(): Promise<never> {
    return new Promise((_resolve, reject) => {
      if (this.reason !== undefined) reject(this.reason);
      else this.#events.once('cancelled', () => reject(this.reason));
    });
  }
}

type Caller = (input: unknown, options?: GrpcTestCallOptions) => unknown;

const timers = new WeakMap<InProcessSource, NodeJS.Timeout>();

function caller(binding: MethodBinding, pipeline: CallPipeline, defaults: GrpcTestClientOptions): Caller {
  const start = (input: unknown, options: GrpcTestCallOptions): { call: GrpcCall; source: InProcessSource } => {
    const metadata = recordToMetadata({ ...defaults.metadata, ...options.metadata });
    const deadline = options.deadline === undefined ? Infinity : typeof options.deadline === 'number' ? Date.now() + options.deadline : options.deadline.getTime();
    const source = new InProcessSource(metadata, defaults.peer ?? '127.0.0.1:0', deadline);
    options.signal?.addEventListener('abort', () => source.cancel(), { once: true });
    if (Number.isFinite(deadline)) {
      // Same outcome as over the network: the handler's signal aborts and the caller gets DEADLINE_EXCEEDED.
      const timer = setTimeout(() => source.cancel(new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded')), Math.max(0, deadline - Date.now()));
      timer.unref();
      source.once('cancelled', () => clearTimeout(timer));
      timers.set(source, timer);
    }
    const streamIn = binding.streaming === 'client' || binding.streaming === 'bidirectional';
    const call = streamIn
      ? new GrpcCall(binding, source, undefined, requestStream(binding, input))
      : new GrpcCall(binding, source, wire(binding.requestSerialize, binding.requestDeserialize, input), undefined);
    return { call, source };
  };
  const translate = (error: unknown, call: GrpcCall, source: InProcessSource, options: GrpcTestCallOptions): GrpcError => {
    let translated = GrpcError.from(error);
    if (!(error instanceof GrpcError) && translated.message === GENERIC_INTERNAL_MESSAGE) pipeline.onUnexpected(error, binding.path);
    let metadata: MetadataRecord;
    try {
      // The same check the server applies before the wire: metadata gRPC cannot carry is an INTERNAL.
      metadata = metadataToRecord(deliver(call, source, options, recordToMetadata(translated.metadata)));
    } catch (invalid) {
      pipeline.onUnexpected(invalid, binding.path);
      translated = new GrpcError(GrpcStatus.INTERNAL, GENERIC_INTERNAL_MESSAGE);
      metadata = metadataToRecord(deliver(call, source, options, new MetadataMap()));
    }
    return new GrpcError(translated.code, translated.message, metadata);
  };

  if (binding.streaming === 'none' || binding.streaming === 'client') {
    return async (input, options = {}) => {
      const { call, source } = start(input, options);
      const ended = source.ended();
      ended.catch(() => undefined);
      try {
        const result = await Promise.race([Promise.resolve().then(() => pipeline.run(binding, call)), ended]);
        if (source.reason === undefined && Date.now() >= source.deadline) source.cancel(new GrpcError(GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded'));
        if (source.reason !== undefined) throw source.reason;
        const response = wire(binding.responseSerialize, binding.responseDeserialize, result);
        deliver(call, source, options, undefined);
        return response;
      } catch (error) {
        throw translate(source.reason ?? error, call, source, options);
      } finally {
        clearTimeout(timers.get(source));
        call.finish();
      }
    };
  }
  return (input, options = {}) => {
    const { call, source } = start(input, options);
    return (async function* responses(): AsyncGenerator<unknown> {
      let iterator: AsyncIterator<unknown> | Iterator<unknown> | undefined;
      let done = false;
      try {
        const produced = await pipeline.run(binding, call);
        iterator = iteratorOf(produced, binding.path);
        for (;;) {
          if (source.reason !== undefined) throw source.reason;
          const next = await iterator.next();
          if (source.reason !== undefined) throw source.reason;
          if (next.done === true) break;
          yield wire(binding.responseSerialize, binding.responseDeserialize, next.value);
        }
        done = true;
        deliver(call, source, options, undefined);
      } catch (error) {
        done = source.reason === undefined;
        throw translate(source.reason ?? error, call, source, options);
      } finally {
        clearTimeout(timers.get(source));
        if (!done) {
          // The caller stopped reading: cancel like a network client would.
          source.cancel();
          await iterator?.return?.();
        }
        call.finish();
      }
    })();
  };
}

/**
 * Hands the call's response headers and trailers (merged with an error's
 * `extra` metadata) to the caller's callbacks, as the network client does;
 * returns the trailers.
 */
function deliver(call: GrpcCall, source: InProcessSource, options: GrpcTestCallOptions, extra: MetadataMap | undefined): MetadataMap {
  const controls = call.controlsInUse;
  controls?.sendHeader();
  const trailers = controls === undefined ? (extra ?? new MetadataMap()) : controls.trailers(extra);
  if (source.headers !== undefined) options.onHeader?.(metadataToRecord(source.headers));
  options.onTrailer?.(metadataToRecord(trailers));
  return trailers;
}

/** Encodes and decodes `value`, so handlers see exactly what the wire would give them. */
function wire(serialize: (v: unknown) => Buffer, deserialize: (b: Buffer) => unknown, value: unknown): unknown {
  let bytes: Buffer;
  try {
    bytes = serialize(value);
  } catch {
    throw new GrpcError(GrpcStatus.INTERNAL, 'Error serializing message');
  }
  try {
    return deserialize(bytes);
  } catch {
    throw new GrpcError(GrpcStatus.INTERNAL, 'Error deserializing message');
  }
}

async function* requestStream(binding: MethodBinding, input: unknown): AsyncGenerator<unknown> {
  if (typeof input !== 'object' || input === null || !(Symbol.asyncIterator in input || Symbol.iterator in input)) {
    throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, `${binding.method} takes an (async) iterable of requests`);
  }
  for await (const request of input as AsyncIterable<unknown>) yield wire(binding.requestSerialize, binding.requestDeserialize, request);
}
