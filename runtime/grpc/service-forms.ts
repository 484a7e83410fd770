/**
 * The three ways to hand a service to `addService` (spec 4.6 and the
 * generated-code contract), each turned into a `ServiceBinding`:
 *
 * 1. inline `{name, methods: {Method: {handler, streaming?}}}`, JSON codec;
 * 2. `{definition, implementation}` from `loadProtoDefinition()`, handlers take `call`;
 * 3. a generated `ServiceDescriptor` plus camelCase handlers `(request, context)`.
 */
import type { PackageDefinition } from '@grpc/proto-loader';
import type { RequestContext } from '../core/request-context';
import { GrpcStatus } from '../core/status';
import type { GrpcCall } from './call';
import type { MethodDescriptor, ServiceDescriptor, StreamingMode } from '../rpc/descriptor';
import { GrpcError } from './errors';
import { inferStreaming, isStreamingMode } from '../rpc/streaming-kind';
import { decodeJson, decodeJsonOrThrow, encodeJson } from './json-codec';
import { asBuffer, type Invoker, type MethodBinding, type ServiceBinding } from './method-binding';
import type { ProtoServiceSource } from './proto-definition';
import { reflectionEntry } from './reflection-entry';
import { requestChecks, type DescriptorOptions } from './request-checks';

/** A message of an inline (JSON) or proto-loaded service: a plain object. */
export type Message = Record<string, unknown>;

/**
 * An inline method handler. Unary and server streaming receive the request;
 * client streaming and bidirectional receive an `AsyncIterable` of requests.
 * Declared as a method so handlers may annotate their own parameter types.
 */
export interface InlineMethod {
  handler(request: unknown, context: RequestContext): unknown;
  /** How the method streams; inferred from the handler when absent (docs/grpc.md). */
  streaming?: StreamingMode;
}

/** Form 1: `{name, methods}` served with the JSON codec. */
export interface InlineServiceDefinition {
  /** Service name as it appears in the gRPC path (`UserService` or `user.UserService`). */
  name: string;
  methods: Record<string, InlineMethod | InlineMethod['handler']>;
}

/** A `{definition, implementation}` handler: `call.request` (unary, server streaming) or `for await (const m of call)`. */
export interface ProtoMethodHandler {
  handler(call: GrpcCall<Message>): unknown;
}

/** Form 2: a service from `loadProtoDefinition()` and its handlers keyed by PascalCase (or camelCase) method name. */
export interface ProtoServiceRegistration {
  definition: ProtoServiceSource;
  implementation: Record<string, ProtoMethodHandler['handler']>;
}

/** Form 3 handlers: an object (or class instance) with a camelCase method per RPC, per rpc/handler-types. */
export type DescriptorHandlers = object;

type AnyFunction = (...args: unknown[]) => unknown;

/** True when `value` is form 2. */
export function isProtoRegistration(value: unknown): value is ProtoServiceRegistration {
  return typeof value === 'object' && value !== null && 'definition' in value && 'implementation' in value;
}

/** Form 1 → binding. Throws a TypeError naming the method when a definition is unusable. */
export function bindInline(definition: InlineServiceDefinition): ServiceBinding {
  if (typeof definition.name !== 'string' || definition.name === '') throw new TypeError('addService: inline service needs a non-empty name');
  if (typeof definition.methods !== 'object' || definition.methods === null) throw new TypeError(`addService(${definition.name}): methods must be an object`);
  const methods: MethodBinding[] = [];
  for (const methodName of Object.keys(definition.methods)) {
    const entry = definition.methods[methodName];
    const method: InlineMethod = typeof entry === 'function' ? { handler: entry } : (entry as InlineMethod);
    if (typeof method?.handler !== 'function') throw new TypeError(`addService(${definition.name}): method ${methodName} needs a handler function`);
    if (method.streaming !== undefined && !isStreamingMode(method.streaming)) {
      throw new TypeError(`addService(${definition.name}): ${methodName}.streaming must be none, server, client or bidirectional`);
    }
    const streaming = method.streaming ?? inferStreaming(method.handler as AnyFunction);
    const handler = method.handler.bind(method) as (request: unknown, context: RequestContext) => unknown;
    const invoke: Invoker = streamsIn(streaming)
      ? (call) => handler(call.requests, call.context)
      : (call) => handler(withClientIp(call.request, call), call.context);
    methods.push(jsonBinding(definition.name, methodName, streaming, invoke));
  }
  return { name: definition.name, methods, packageDefinition: undefined };
}

/** The JSON-codec binding of one inline method; also used by clients of inline services. */
export function jsonBinding(service: string, method: string, streaming: StreamingMode, invoke: Invoker): MethodBinding {
  return {
    service,
    method,
    path: `/${service}/${method}`,
    streaming,
    requestDeserialize: decodeJson,
    requestSerialize: encodeJson,
    responseSerialize: encodeJson,
    responseDeserialize: decodeJsonOrThrow,
    invoke,
    skipMiddleware: false,
    contentType: JSON_CONTENT_TYPE,
  };
}

/** Content-type of the JSON codec's responses (DESIGN.md "gRPC runtime"). */
export const JSON_CONTENT_TYPE = 'application/grpc+json';

/** Form 2 → binding. Methods without an implementation answer UNIMPLEMENTED. */
export function bindProto(registration: ProtoServiceRegistration): ServiceBinding {
  // Only this form reads grpc-js's definition objects: the module that does is loaded with its first use.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { resolveProtoService } = require('./proto-definition') as typeof import('./proto-definition');
  const service = resolveProtoService(registration.definition);
  const implementation = registration.implementation ?? {};
  const methods: MethodBinding[] = [];
  for (const key of Object.keys(service.methods)) {
    const def = service.methods[key] as (typeof service.methods)[string];
    const methodName = def.path.slice(def.path.lastIndexOf('/') + 1);
    const handler = implementation[methodName] ?? (def.originalName === undefined ? undefined : implementation[def.originalName]);
    const streaming = modeOf(def.requestStream, def.responseStream);
    const invoke: Invoker =
      typeof handler === 'function' ? (call) => handler.call(implementation, call as GrpcCall<Message>) : unimplemented(service.name, methodName);
    methods.push({
      service: service.name,
      method: methodName,
      path: def.path,
      streaming,
      requestDeserialize: def.requestDeserialize,
      requestSerialize: def.requestSerialize,
      responseSerialize: def.responseSerialize,
      responseDeserialize: def.responseDeserialize,
      invoke,
      skipMiddleware: false,
    });
  }
  return { name: service.name, methods, packageDefinition: service.packageDefinition };
}

/** Form 3 → binding. Handlers are looked up by `localName` (camelCase), then by PascalCase name; requests pass protovalidate first. */
export function bindDescriptor(descriptor: ServiceDescriptor, handlers: DescriptorHandlers, options: DescriptorOptions = {}): ServiceBinding {
  if (typeof handlers !== 'object' || handlers === null) throw new TypeError(`addService(${descriptor.typeName}): handlers must be an object`);
  const table = handlers as Record<string, unknown>;
  const methods: MethodBinding[] = [];
  for (const key of Object.keys(descriptor.methods)) {
    const method = descriptor.methods[key] as MethodDescriptor;
    const found = table[method.localName] ?? table[method.name];
    const handler = typeof found === 'function' ? (found as AnyFunction) : undefined;
    const checks = requestChecks(descriptor, method, options);
    let invoke: Invoker;
    if (handler === undefined) invoke = unimplemented(descriptor.typeName, method.name);
    else invoke = (call) => checks.output(handler.call(handlers, checks.input(call), call.context));
    methods.push(descriptorMethodBinding(descriptor, method, invoke, checks.decode));
  }
  return { name: descriptor.typeName, methods, packageDefinition: reflectionEntry(descriptor) };
}

/** Binding of one descriptor method with its binary codecs; clients reuse it with a no-op invoker. */
export function descriptorMethodBinding(descriptor: ServiceDescriptor, method: MethodDescriptor, invoke: Invoker, decode?: (bytes: Uint8Array) => unknown): MethodBinding {
  const request = method.requestCodec;
  const response = method.responseCodec;
  return {
    service: descriptor.typeName,
    method: method.name,
    path: method.path,
    streaming: method.streaming,
    requestDeserialize: decode ?? ((bytes) => request.decode(bytes)),
    requestSerialize: (value) => asBuffer(request.encode(value)),
    responseSerialize: (value) => asBuffer(response.encode(value)),
    responseDeserialize: (bytes) => response.decode(bytes),
    invoke,
    skipMiddleware: false,
  };
}

/** The spec's streaming mode for grpc-js's two flags. */
export function modeOf(requestStream: boolean, responseStream: boolean): StreamingMode {
  if (requestStream) return responseStream ? 'bidirectional' : 'client';
  return responseStream ? 'server' : 'none';
}

/** True when the handler receives a request stream. */
export function streamsIn(mode: StreamingMode): boolean {
  return mode === 'client' || mode === 'bidirectional';
}

/** True when the handler produces a response stream. */
export function streamsOut(mode: StreamingMode): boolean {
  return mode === 'server' || mode === 'bidirectional';
}

function unimplemented(service: string, method: string): Invoker {
  return () => {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, `Method ${service}/${method} has no handler in the registered implementation`);
  };
}

// Spec 4.6: inline handlers may read `clientIp` on the request (rate limiting).
// Non-enumerable, so a handler echoing its request does not send it back.
function withClientIp(request: unknown, call: GrpcCall): unknown {
  if (typeof request === 'object' && request !== null && !Object.prototype.hasOwnProperty.call(request, 'clientIp')) {
    Object.defineProperty(request, 'clientIp', { get: () => call.context.client.address, enumerable: false, configurable: true });
  }
  return request;
}
