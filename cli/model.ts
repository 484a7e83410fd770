/**
 * The plain model templates render: computed once in TypeScript from the
 * descriptor registry so that templates stay free of logic.
 */
import type { IdempotencyLevel } from './idempotency-level';
import type { StreamingMode } from './streaming-mode';

/** A JSON value as emitted into schemas and OpenAPI documents. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The spec's simple validation shape: `{type: 'object', properties}` (spec 2.3). */
export interface SimpleSchema {
  type: 'object';
  properties: Record<string, { type: string; required?: boolean }>;
}

/** A TypeScript type imported from a ts-proto module. */
export interface TsTypeRef {
  /** Fully-qualified proto name: `user.GetUserRequest`. */
  protoName: string;
  /** The name ts-proto exports: `GetUserRequest`, `Outer_Inner`. */
  exportName: string;
  /** The name used in the importing file (differs when two imports collide). */
  localName: string;
  /** Root-relative module path without extension: `user`, `common/types`. */
  module: string;
}

/** One HTTP route from a `google.api.http` rule (or an additional binding). */
export interface HttpRouteModel {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `google.api.http` template: `/users/{id}`. */
  path: string;
  /** Express-style path for fw's router: `/users/:id`. */
  routerPath: string;
  body?: string;
  /** `response_body`: the field of the response that is the HTTP reply. */
  responseBody?: string;
  /** Path template variables (field paths), in order. */
  params: string[];
  /** Method and template with variable names dropped (`GET /v1/operations/**`): equal shapes collide. */
  shape: string;
}

/** One RPC with everything the templates print for it. */
export interface MethodModel {
  name: string;
  localName: string;
  /** gRPC path: `/user.UserService/GetUser`. */
  path: string;
  streaming: StreamingMode;
  /** `option idempotency_level`: lets the gateway retry and hedge forwarded calls. */
  idempotency: IdempotencyLevel;
  comment: string | undefined;
  request: TsTypeRef;
  response: TsTypeRef;
  http: HttpRouteModel[];
  /** Default gateway route below the base path: `/UserService/getUser`. */
  defaultRoute: string;
  inputSchema: { [key: string]: Json };
  simpleSchema: SimpleSchema;
}

/** One file's FileDescriptorProto. */
export interface DescriptorFile {
  /** Proto path: `user.proto`, `google/protobuf/timestamp.proto`. */
  name: string;
  bytes: Uint8Array;
}

/** One proto service. */
export interface ServiceModel {
  name: string;
  typeName: string;
  packageName: string;
  comment: string | undefined;
  methods: MethodModel[];
}

/** The compiled validators of one file (validators/compile-validators.ts). */
export interface CompiledValidatorsModel {
  /** TypeScript: hoisted constants and one function per message type. */
  code: string;
  /** Proto type name → function, for the types that compiled. */
  /** `cel`: protovalidate checks the type's CEL rules too. */
  functions: { typeName: string; fn: string; cel: boolean }[];
  /** Message types the functions name that the methods do not (imported as types only). */
  types: TsTypeRef[];
}

/** One user proto file and what fw-gen emits for it. */
export interface FileModel {
  /** Root-relative proto path: `user.proto`. */
  protoPath: string;
  /** Root-relative path without `.proto`: `user`, `a/b`. */
  stem: string;
  packageName: string;
  services: ServiceModel[];
  /** Every message type referenced by the services, with import names fixed. */
  imports: TsTypeRef[];
  /** JSON Schemas of every message reachable from the services, by proto name. */
  schemas: { [protoName: string]: Json };
  /** Validators compiled from the buf.validate rules of the messages the services use. */
  validators: CompiledValidatorsModel;
  /** FileDescriptorProtos (no source info) of this file and its imports, imports first: for reflection and validation. */
  descriptorFiles: DescriptorFile[];
}
