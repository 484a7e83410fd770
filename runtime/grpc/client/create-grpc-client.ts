/**
 * `createGrpcClient` (spec 4.9): a camelCase client over grpc-js for a
 * generated descriptor, a service from `loadProtoDefinition()`, or an inline
 * JSON service described as `{name, methods: {Method: streamingMode}}`.
 * Unary → Promise; server streaming → AsyncIterable; client streaming takes
 * an AsyncIterable → Promise; bidirectional takes an AsyncIterable →
 * AsyncIterable. Every failure is a GrpcError.
 */
import type { Client, ChannelCredentials, Metadata, ChannelOptions, ClientDuplexStream, ClientReadableStream, ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import { grpcJs } from '../grpc-js-peer';
import { isServiceDescriptor, type ServiceDescriptor, type StreamingMode } from '../../rpc/descriptor';
import type { MetadataRecord } from '../../core/call-metadata';
import { GrpcError, metadataToRecord, recordToMetadata } from '../errors';
import { isStreamingMode } from '../../rpc/streaming-kind';
import type { MethodBinding } from '../method-binding';
import { resolveProtoService, type ProtoServiceSource } from '../proto-definition';
import { descriptorMethodBinding, jsonBinding, modeOf } from '../service-forms';

/** Per-call options, always the last argument. */
export interface GrpcCallOptions {
  /** Request metadata: text values for ordinary keys, bytes (Uint8Array) for `-bin` keys. */
  metadata?: MetadataRecord;
  /** Receives the response headers when they arrive (`-bin` values as Buffers). */
  onHeader?: (headers: MetadataRecord) => void;
  /** Receives the trailers when the call ends, on success and on error (also on `GrpcError.metadata`). */
  onTrailer?: (trailers: MetadataRecord) => void;
  /** Absolute deadline, or milliseconds from now. */
  deadline?: Date | number;
  /** Aborting cancels the call; the caller sees GrpcError CANCELLED. */
  signal?: AbortSignal;
}

/** An inline JSON service as a client sees it: method name → streaming mode. */
export interface InlineClientService {
  name: string;
  methods: Record<string, StreamingMode>;
}

/** Options of `createGrpcClient()`. */
export interface GrpcClientOptions {
  /** `host:port` */
  address: string;
  /** `'insecure'` (default; non-production) or grpc-js ChannelCredentials. */
  credentials?: 'insecure' | ChannelCredentials;
  service: ServiceDescriptor | ProtoServiceSource | InlineClientService;
  /** Request compression (grpc-js `grpc.default_compression_algorithm`). */
  compression?: 'gzip' | 'none';
  /** Any grpc-js channel option (`grpc.max_receive_message_length`, `grpc.keepalive_time_ms`, …). */
  channelOptions?: ChannelOptions;
}

/** What every client has besides its methods. */
export interface GrpcClientControls {
  /** Closes the channel; calls in flight fail with UNAVAILABLE/CANCELLED. */
  close(): void;
}

/** An untyped client: any method name, `unknown` in and out. */
export type UntypedGrpcClient = Record<string, (input: unknown, options?: GrpcCallOptions) => unknown>;

/**
 * @example
 * import { createGrpcClient } from 'fw/grpc-client';
 * import { UserServiceDescriptor, type UserServiceClient } from './generated/user.fw';
 * const client = createGrpcClient<UserServiceClient>({ address: '127.0.0.1:50051', credentials: 'insecure', service: UserServiceDescriptor });
 * const user = await client.getUser({ id: '1' }, { deadline: 2000 });
 * for await (const u of client.listUsers({ page: 1, limit: 10 })) console.log(u.name);
 */
export function createGrpcClient<T extends object = UntypedGrpcClient>(options: GrpcClientOptions): T & GrpcClientControls {
  if (typeof options.address !== 'string' || options.address === '') throw new TypeError('createGrpcClient: address is required (host:port)');
  if (typeof options.service !== 'object' && typeof options.service !== 'function') {
    throw new TypeError('createGrpcClient: service is required (a generated descriptor, a service from loadProtoDefinition(), or {name, methods})');
  }
  const channelOptions: ChannelOptions = { ...options.channelOptions };
  if (options.compression === 'gzip') channelOptions['grpc.default_compression_algorithm'] = 2;
  const { Client } = grpcJs('createGrpcClient()');
  const channel = new Client(options.address, toCredentials(options.credentials), channelOptions);
  const client: Record<string, unknown> = { close: () => channel.close() };
  for (const binding of bindingsOf(options.service)) {
    const name = binding.method.charAt(0).toLowerCase() + binding.method.slice(1);
    client[name] = methodCaller(channel, binding);
  }
  return client as T & GrpcClientControls;
}

function toCredentials(credentials: GrpcClientOptions['credentials']): ChannelCredentials {
  if (credentials === undefined || credentials === 'insecure') return grpcJs('createGrpcClient()').credentials.createInsecure();
  return credentials;
}

/** Method bindings (codecs + paths) for any of the three service shapes. */
export function bindingsOf(service: GrpcClientOptions['service']): MethodBinding[] {
  const noInvoke = (): never => {
    throw new Error('client bindings are not invocable');
  };
  if (isServiceDescriptor(service)) {
    return Object.values(service.methods).map((method) => descriptorMethodBinding(service, method, noInvoke));
  }
  if (isInlineClientService(service)) {
    return Object.keys(service.methods).map((method) => {
      const mode = service.methods[method];
      if (!isStreamingMode(mode)) throw new TypeError(`createGrpcClient: ${service.name}.${method} must be none, server, client or bidirectional`);
      return jsonBinding(service.name, method, mode, noInvoke);
    });
  }
  const resolved = resolveProtoService(service as ProtoServiceSource);
  return Object.values(resolved.methods).map((def) => ({
    service: resolved.name,
    method: def.path.slice(def.path.lastIndexOf('/') + 1),
    path: def.path,
    streaming: modeOf(def.requestStream, def.responseStream),
    requestDeserialize: def.requestDeserialize,
    requestSerialize: def.requestSerialize,
    responseSerialize: def.responseSerialize,
    responseDeserialize: def.responseDeserialize,
    invoke: noInvoke,
    skipMiddleware: false,
  }));
}

function isInlineClientService(value: unknown): value is InlineClientService {
  if (typeof value !== 'object' || value === null || typeof (value as InlineClientService).name !== 'string') return false;
  const methods = (value as InlineClientService).methods;
  return typeof methods === 'object' && methods !== null && Object.values(methods).every((m) => typeof m === 'string');
}

type Caller = (input: unknown, options?: GrpcCallOptions) => unknown;

function methodCaller(channel: Client, binding: MethodBinding): Caller {
  const { path, requestSerialize: serialize, responseDeserialize: deserialize } = binding;
  switch (binding.streaming) {
    case 'none':
      return (request, options = {}) =>
        new Promise((resolve, reject) => {
          const call = channel.makeUnaryRequest(path, serialize, deserialize, request, metadataOf(options), callOptionsOf(options), (error, value) =>
            error ? reject(GrpcError.fromServiceError(error)) : resolve(value),
          );
          observe(call, options);
          cancelOnAbort(call, options.signal);
        });
    case 'server':
      return (request, options = {}) => {
        const call = channel.makeServerStreamRequest(path, serialize, deserialize, request, metadataOf(options), callOptionsOf(options));
        observe(call, options);
        cancelOnAbort(call, options.signal);
        return responses(call);
      };
    case 'client':
      return (requests, options = {}) =>
        new Promise((resolve, reject) => {
          const source = asIterable(requests);
          const call = channel.makeClientStreamRequest(path, serialize, deserialize, metadataOf(options), callOptionsOf(options), (error, value) =>
            error ? reject(GrpcError.fromServiceError(error)) : resolve(value),
          );
          observe(call, options);
          cancelOnAbort(call, options.signal);
          void pump(source, call);
        });
    default:
      return (requests, options = {}) => {
        const source = asIterable(requests);
        const call = channel.makeBidiStreamRequest(path, serialize, deserialize, metadataOf(options), callOptionsOf(options));
        observe(call, options);
        cancelOnAbort(call, options.signal);
        void pump(source, call);
        return responses(call);
      };
  }
}

/** Request metadata; invalid metadata (a string on a `-bin` key, a bad key) throws a TypeError before anything is sent. */
function metadataOf(options: GrpcCallOptions): Metadata {
  const GrpcJsMetadata = grpcJs('createGrpcClient()').Metadata;
  if (options.metadata === undefined) return new GrpcJsMetadata();
  try {
    // Checked as the server checks metadata, then copied into grpc-js's own class for its channel.
    const checked = recordToMetadata(options.metadata).toJSON();
    const metadata = new GrpcJsMetadata();
    for (const key of Object.keys(checked)) for (const value of checked[key] ?? []) metadata.add(key, value as string | Buffer);
    return metadata;
  } catch (error) {
    throw new TypeError(`createGrpcClient: ${(error as Error).message}`);
  }
}

type ObservedCall = { on(event: 'metadata', listener: (metadata: Metadata) => void): unknown; on(event: 'status', listener: (status: { metadata: Metadata }) => void): unknown };

/** Hands the response headers and trailers to the caller's callbacks. */
function observe(call: ObservedCall, options: GrpcCallOptions): void {
  const { onHeader, onTrailer } = options;
  if (onHeader !== undefined) call.on('metadata', (metadata) => onHeader(metadataToRecord(metadata)));
  if (onTrailer !== undefined) call.on('status', (status) => onTrailer(metadataToRecord(status.metadata)));
}

function callOptionsOf(options: GrpcCallOptions): { deadline?: Date } {
  if (options.deadline === undefined) return {};
  return { deadline: typeof options.deadline === 'number' ? new Date(Date.now() + options.deadline) : options.deadline };
}

function cancelOnAbort(call: { cancel(): void; once(event: 'status', listener: () => void): unknown }, signal: AbortSignal | undefined): void {
  if (signal === undefined) return;
  if (signal.aborted) {
    call.cancel();
    return;
  }
  const cancel = (): void => call.cancel();
  signal.addEventListener('abort', cancel, { once: true });
  call.once('status', () => signal.removeEventListener('abort', cancel));
}

function asIterable(value: unknown): AsyncIterable<unknown> | Iterable<unknown> {
  if (typeof value === 'object' && value !== null && (Symbol.asyncIterator in value || Symbol.iterator in value)) {
    return value as AsyncIterable<unknown>;
  }
  throw new TypeError('a client-streaming method takes an (async) iterable of requests');
}

/** Writes each request with back-pressure, then half-closes; a failing source cancels the call. */
async function pump(requests: AsyncIterable<unknown> | Iterable<unknown>, call: ClientWritableStream<unknown> | ClientDuplexStream<unknown, unknown>): Promise<void> {
  let ended = false;
  call.once('status', () => {
    ended = true;
  });
  try {
    for await (const request of requests) {
      if (ended) return;
      if (!call.write(request)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            call.removeListener('drain', done);
            call.removeListener('status', done);
            resolve();
          };
          call.once('drain', done);
          call.once('status', done);
        });
      }
    }
    if (!ended) call.end();
  } catch {
    call.cancel();
  }
}

/** The response stream as an AsyncIterable whose failures are GrpcErrors; leaving early cancels the call. */
async function* responses(call: ClientReadableStream<unknown> | ClientDuplexStream<unknown, unknown>): AsyncGenerator<unknown> {
  let finished = false;
  try {
    for await (const message of call) yield message;
    finished = true;
  } catch (error) {
    finished = true;
    throw GrpcError.fromServiceError(error as ServiceError);
  } finally {
    if (!finished) call.cancel();
  }
}
