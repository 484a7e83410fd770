/**
 * The service descriptor: the one shape through which generated code (fw-gen's
 * `x.fw.ts`) hands a proto service to the runtime. The gRPC server
 * (`app.addService(descriptor, implementation)`), the typed client
 * (`createGrpcClient(descriptor, options)`), the in-process test client and the
 * gateway all read it, so a generated service needs no hand wiring anywhere.
 *
 * It is plain data plus codecs: no grpc-js types leak into generated code.
 */

import type { CompiledValidators } from '../validation/compiled-validator';

/** How a method streams, named as the spec's `streaming` values (spec 2.3). */
export type StreamingMode = 'none' | 'server' | 'client' | 'bidirectional';

/**
 * A method's `option idempotency_level` (google.protobuf.MethodOptions):
 * `no_side_effects` and `idempotent` calls may be sent again (retried,
 * hedged) by a gateway forwarding them; `unknown` ones are sent once.
 */
export type IdempotencyLevel = 'unknown' | 'no_side_effects' | 'idempotent';

/** Binary and JSON codec of one message type (ts-proto's `encode/decode/fromJSON/toJSON`, adapted). */
export interface MessageCodec<T> {
  /** Protobuf binary encoding. */
  encode(message: T): Uint8Array;
  /** Protobuf binary decoding; throws on malformed input. */
  decode(bytes: Uint8Array): T;
  /** From canonical proto3 JSON (camelCase keys, timestamps as RFC 3339 strings). */
  fromJSON(json: unknown): T;
  /** To canonical proto3 JSON. */
  toJSON(message: T): unknown;
}

/** One `google.api.http` rule, with `{field}` path templates kept verbatim. */
export interface HttpRule {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** e.g. `/users/{id}` */
  path: string;
  /** `*` (whole request from the body), a field name, or undefined (no body). */
  body?: string;
  /** `response_body`: the reply is this field of the response message. */
  responseBody?: string;
}

/** JSON Schema (draft 2020-12) for a message, as emitted by fw-gen for ajv. */
export type JsonSchema = Record<string, unknown>;

export interface MethodDescriptor<Req = unknown, Res = unknown> {
  /** Proto method name, PascalCase: `GetUser`. */
  name: string;
  /** camelCase name used by clients and gateway bindings: `getUser`. */
  localName: string;
  /** gRPC path: `/user.UserService/GetUser`. */
  path: string;
  streaming: StreamingMode;
  /** From `option idempotency_level`; absent (hand-written descriptors) means `unknown`. */
  idempotency?: IdempotencyLevel;
  /** Fully-qualified message type names: `user.GetUserRequest`. */
  requestType: string;
  responseType: string;
  requestCodec: MessageCodec<Req>;
  responseCodec: MessageCodec<Res>;
  /** HTTP mappings from `google.api.http`; empty when the proto has none. */
  http: readonly HttpRule[];
  /** JSON Schema of the request (from `buf.validate` rules and field types). */
  inputSchema?: JsonSchema;
}

export interface ServiceDescriptor<M extends Record<string, MethodDescriptor> = Record<string, MethodDescriptor>> {
  /** Fully-qualified: `user.UserService`. */
  typeName: string;
  /** Short: `UserService`. */
  name: string;
  /** Proto package: `user`. */
  packageName: string;
  /** Keyed by PascalCase proto method name. */
  methods: M;
  /**
   * Serialized `google.protobuf.FileDescriptorProto`s of the service's file and
   * its imports. Optional; when present, server reflection describes the service.
   */
  fileDescriptorProtos?: readonly Uint8Array[];
  /**
   * Validators fw-gen compiled from the messages' buf.validate rules, by
   * message type name; types without one are checked by protovalidate.
   */
  validators?: CompiledValidators;
}

/** Request type of a method descriptor. */
export type RequestOf<D> = D extends MethodDescriptor<infer Req, unknown> ? Req : never;
/** Response type of a method descriptor. */
export type ResponseOf<D> = D extends MethodDescriptor<unknown, infer Res> ? Res : never;

/** True when `value` looks like a descriptor (used by `addService` to pick its form). */
export function isServiceDescriptor(value: unknown): value is ServiceDescriptor {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ServiceDescriptor).typeName === 'string' &&
    typeof (value as ServiceDescriptor).methods === 'object'
  );
}
