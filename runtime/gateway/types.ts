/**
 * The gateway's service model (spec 2.3): what `addService` accepts and what
 * handlers see. Services registered from generated descriptors are turned into
 * the same model by the registry.
 */
import type { StreamingMode } from '../rpc/descriptor';
import type { ServiceAuthenticationConfig } from '../rpc/access-policy';
import type { RpcHandler } from '../rpc/call-types';
import type { DispatchInterceptor } from './extension-points';
import type { ValidationEngine } from '../validation/compiled-validator';

/**
 * Validation schema: the spec's `{type: 'object', properties: {x: {type, required}}}`
 * shape, or any JSON Schema (draft 2020-12) that ajv accepts.
 */
export interface ValidationSchema {
  type?: string;
  properties?: Record<string, ValidationSchema & { required?: boolean | string[] }>;
  [keyword: string]: unknown;
}

/** `{requests, window}`: at most `requests` calls per `window` milliseconds per client address. */
export interface RateLimitConfig {
  requests: number;
  /** Window length in milliseconds. */
  window: number;
}

export type { ServiceAuthenticationConfig } from '../rpc/access-policy';

/** A gateway handler: value or promise for unary/client streaming, async iterable for server/bidi streaming. */
export type GatewayHandler = RpcHandler;

/** One method of a ServiceDefinition (spec 2.3 `ServiceMethod`). */
export interface ServiceMethod {
  handler: GatewayHandler;
  input?: ValidationSchema;
  output?: ValidationSchema;
  streaming?: StreamingMode;
  /** false makes this method public even when the service requires authentication; true requires it. */
  authentication?: boolean;
  rateLimit?: RateLimitConfig;
}

/** A service as the gateway holds it (spec 2.3 `ServiceDefinition`). */
export interface ServiceDefinition {
  name: string;
  methods: Record<string, ServiceMethod>;
  /** Interceptors `(call, next)` that wrap this service's calls only. */
  middleware?: DispatchInterceptor[];
  authentication?: ServiceAuthenticationConfig;
  rateLimit?: RateLimitConfig;
}

/** The three inline forms `addService(name, …)` accepts. */
export type ServiceInput =
  | ServiceDefinition
  | Omit<ServiceDefinition, 'name'>
  | Record<string, ServiceMethod | GatewayHandler>;

/** Per-service options when registering a generated descriptor. */
export interface DescriptorServiceOptions {
  /** Name the gateway uses for the service; default the descriptor's short name. */
  name?: string;
  middleware?: DispatchInterceptor[];
  authentication?: ServiceAuthenticationConfig;
  rateLimit?: RateLimitConfig;
  /** Accept and drop JSON members a request message does not declare; default: the gateway's `ignoreUnknownFields` (false → refused). */
  ignoreUnknownFields?: boolean;
  /** Check responses against their buf.validate rules too (a development aid); default: the gateway's `validateResponses` (false). */
  validateResponses?: boolean;
  /** `compiled` (default): fw-gen's compiled validators; `protovalidate`: protovalidate's interpreter for this service; default: the gateway's `validation`. */
  validation?: ValidationEngine;
  /** Per-method extras keyed by camelCase or PascalCase method name. */
  methods?: Record<string, Partial<Omit<ServiceMethod, 'handler' | 'streaming'>> & {
    /**
     * Client and bidi streams: `fail` (default) ends the call with
     * VALIDATION_ERROR at the first invalid item; `deliver` hands every item
     * to the handler, invalid ones carrying their violations (`violationsOf(item)`).
     */
    invalidItems?: 'fail' | 'deliver';
  }>;
}
