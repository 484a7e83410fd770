/**
 * The gateway's service forms: `addService` takes the three inline forms of
 * the gateway API or a generated ServiceDescriptor with handlers; each
 * becomes a RegisteredService of ResolvedMethods that the call core's
 * registry (rpc/registry.ts) stores and every transport dispatches to.
 */
import type { MethodDescriptor, ServiceDescriptor, StreamingMode } from '../rpc/descriptor';
import { isServiceDescriptor } from '../rpc/descriptor';
import { inferStreaming } from '../rpc/streaming-kind';
import { isDirect, type RegisteredService, type ResolvedMethod, type ServicePolicy } from '../rpc/resolved-method';
import { limiterFor, type FixedWindowLimiter } from './rate-limit';
import type { DescriptorServiceOptions, GatewayHandler, ServiceDefinition, ServiceInput, ServiceMethod } from './types';
import { compileValidator, type Validator } from './validation';
import { gatesOf } from '../rpc/lazy-gates';
import type { GateOptions, MethodGates } from '../rpc/message-gate';
import { passThroughSpec } from './pass-through';
import { checkInvalidItems, type InvalidItemPolicy } from '../validation/stream-items';
import { deliverInvalid, isInvalidMessageError } from '../validation/violations';

export type { InvalidItemPolicy };
export { ServiceRegistry } from '../rpc/registry';
export { isDirect, type RegisteredService, type ResolvedMethod, type ServicePolicy } from '../rpc/resolved-method';

/** Gateway-wide defaults of generated services' validation. */
export interface ValidationDefaults extends GateOptions {
  /** Check handlers' responses against their rules too (development aid); default false. */
  validateResponses?: boolean;
}

const STREAMING: readonly StreamingMode[] = ['none', 'server', 'client', 'bidirectional'];

function toMethods(input: Record<string, unknown>, service: string): Record<string, ServiceMethod> {
  const out: Record<string, ServiceMethod> = {};
  for (const [name, value] of Object.entries(input)) {
    if (typeof value === 'function') {
      out[name] = { handler: value as GatewayHandler, streaming: inferStreaming(value as GatewayHandler) };
    } else if (value !== null && typeof value === 'object' && typeof (value as ServiceMethod).handler === 'function') {
      out[name] = value as ServiceMethod;
    } else {
      throw new TypeError(`addService(${service}): method "${name}" needs a handler function`);
    }
  }
  return out;
}

function checkRateLimit(config: ServiceMethod['rateLimit'], where: string): FixedWindowLimiter | undefined {
  if (config === undefined) return undefined;
  try {
    return limiterFor(config);
  } catch (e) {
    throw new TypeError(`${where}: ${(e as Error).message}`);
  }
}

/** An inline service (the gateway API's three forms) as the registry stores it. */
export function inlineService(name: string, input: ServiceInput): RegisteredService {
  if (typeof name !== 'string' || name === '') throw new TypeError('addService needs a service name');
  if (input === null || typeof input !== 'object') throw new TypeError(`addService(${name}): definition must be an object`);
  const asDef = input as Partial<ServiceDefinition>;
  const isDefinition = asDef.methods !== null && typeof asDef.methods === 'object' && typeof (asDef.methods as { handler?: unknown }).handler !== 'function';
  const methods = toMethods((isDefinition ? asDef.methods : input) as Record<string, unknown>, name);
  const policy: ServicePolicy = {
    name,
    middleware: isDefinition ? (asDef.middleware ?? []) : [],
    authentication: isDefinition ? asDef.authentication : undefined,
    limiter: isDefinition ? checkRateLimit(asDef.rateLimit, `addService(${name}).rateLimit`) : undefined,
  };
  const resolved = Object.entries(methods).map(([method, def]) => inlineMethod(name, method, def, policy));
  return { name, descriptor: undefined, methods: resolved };
}

/** A generated service (descriptor + camelCase handlers, decoded strictly and validated with protovalidate) as the registry stores it. */
export function descriptorService(descriptor: ServiceDescriptor, handlers: Record<string, unknown>, options: DescriptorServiceOptions = {}, defaults: ValidationDefaults = {}): RegisteredService {
  if (!isServiceDescriptor(descriptor)) throw new TypeError('addService: not a ServiceDescriptor');
  if (handlers === null || typeof handlers !== 'object') throw new TypeError(`addService(${descriptor.name}): handlers must be an object`);
  const name = options.name ?? descriptor.name;
  const policy: ServicePolicy = {
    name,
    middleware: options.middleware ?? [],
    authentication: options.authentication,
    limiter: checkRateLimit(options.rateLimit, `addService(${name}).rateLimit`),
  };
  const gateOptions: GateOptions = { ignoreUnknownFields: options.ignoreUnknownFields ?? defaults.ignoreUnknownFields, validation: options.validation ?? defaults.validation };
  const validateResponses = options.validateResponses ?? defaults.validateResponses ?? false;
  const passThrough = passThroughSpec(handlers);
  const resolved: ResolvedMethod[] = [];
  for (const md of Object.values(descriptor.methods)) {
    const impl = (handlers as Record<string, unknown>)[md.localName] ?? (handlers as Record<string, unknown>)[md.name];
    const extra = options.methods?.[md.localName] ?? options.methods?.[md.name] ?? {};
    const handler: GatewayHandler =
      typeof impl === 'function' ? (impl.bind(handlers) as GatewayHandler) : unimplemented(descriptor.typeName, md.name);
    const gates = gatesOf(descriptor, md, gateOptions);
    const raw = passThrough?.handlers[md.localName];
    const invalidItems = checkInvalidItems(extra.invalidItems, `${name}.${md.localName}`);
    const streamsIn = md.streaming === 'client' || md.streaming === 'bidirectional';
    resolved.push(withDirect({
      service: name,
      method: md.localName,
      streaming: md.streaming,
      handler,
      policy,
      authentication: extra.authentication,
      limiter: checkRateLimit(extra.rateLimit, `${name}.${md.localName}.rateLimit`),
      validateInput: requestValidator(gates, md, extra.input),
      validateOutput: responseValidator(gates, md, extra.output, validateResponses),
      fromJSON: requestReader(gates, md, streamsIn && invalidItems === 'deliver'),
      toJSON: gates === undefined ? (value) => md.responseCodec.toJSON(value) : (value) => gates.response.toJson(value),
      descriptor: md,
      fromBinary: gates === undefined ? (bytes) => md.requestCodec.decode(bytes) : (bytes) => gates.request.fromBinary(bytes),
      paramValue: gates === undefined ? undefined : (path, value) => gates.request.paramValue(path, value),
      invalidItems,
    }, raw === undefined ? undefined : { handler: raw as GatewayHandler, skipRules: passThrough?.instanceValidates === true, schema: extra.input !== undefined }));
  }
  return { name, descriptor, methods: resolved };
}

function inlineMethod(service: string, method: string, def: ServiceMethod, policy: ServicePolicy): ResolvedMethod {
  const streaming = def.streaming ?? inferStreaming(def.handler);
  if (!STREAMING.includes(streaming)) throw new TypeError(`${service}.${method}: streaming must be one of ${STREAMING.join(', ')}`);
  return withDirect({
    service,
    method,
    streaming,
    handler: def.handler,
    policy,
    authentication: def.authentication,
    limiter: checkRateLimit(def.rateLimit, `${service}.${method}.rateLimit`),
    validateInput: def.input === undefined ? undefined : compileValidator(def.input, 'input'),
    validateOutput: def.output === undefined ? undefined : compileValidator(def.output, 'output'),
    fromJSON: undefined,
    toJSON: undefined,
    descriptor: undefined,
    fromBinary: undefined,
    paramValue: undefined,
    invalidItems: 'fail',
  });
}

/** protovalidate rules, then an extra JSON Schema given at registration (checked on the canonical JSON). */
function requestValidator(gates: MethodGates | undefined, md: MethodDescriptor, schema: ServiceMethod['input']): Validator | undefined {
  const rules = gates?.request.ruled === true ? gates.request : undefined;
  const extra = schema === undefined ? undefined : compileValidator(schema, 'input');
  if (rules === undefined && extra === undefined) return undefined;
  return (value) => {
    rules?.check(value);
    extra?.(gates === undefined ? md.requestCodec.toJSON(value) : gates.request.toJson(value));
  };
}

function responseValidator(gates: MethodGates | undefined, md: MethodDescriptor, schema: ServiceMethod['output'], rulesToo: boolean): Validator | undefined {
  const rules = rulesToo && gates?.response.ruled === true ? gates.response : undefined;
  const extra = schema === undefined ? undefined : compileValidator(schema, 'output');
  if (rules === undefined && extra === undefined) return undefined;
  return (value) => {
    rules?.check(value);
    extra?.(gates === undefined ? md.responseCodec.toJSON(value) : gates.response.toJson(value));
  };
}

/**
 * Wire JSON → handler request: strict proto3 JSON through the gate (or the
 * codec for descriptors without embedded files). With `deliver`, an item the
 * mapping refuses still reaches the handler, as the default message carrying
 * its violations.
 */
function requestReader(gates: MethodGates | undefined, md: MethodDescriptor, deliver: boolean): (json: unknown) => unknown {
  if (gates === undefined) return (json) => md.requestCodec.fromJSON(json ?? {});
  const gate = gates.request;
  if (!deliver) return (json) => gate.fromJson(json);
  return (json) => {
    try {
      return gate.fromJson(json);
    } catch (error) {
      if (!isInvalidMessageError(error)) throw error;
      return deliverInvalid(md.requestCodec.decode(new Uint8Array(0)) as object, error.violations);
    }
  };
}

function withDirect(m: Omit<ResolvedMethod, 'direct' | 'passThrough'>, raw?: { handler: GatewayHandler; skipRules: boolean; schema: boolean }): ResolvedMethod {
  const resolved: ResolvedMethod = { ...m, direct: isDirect(m), passThrough: undefined };
  if (raw === undefined) return resolved;
  // Rules may be left to the instance; a JSON Schema given at registration is the gateway's own check.
  const checksInput = m.validateInput !== undefined && (!raw.skipRules || raw.schema);
  const readsMessage = checksInput || m.validateOutput !== undefined || (m.policy?.middleware.length ?? 0) > 0 || m.policy?.authentication?.authorize !== undefined;
  if (readsMessage) return resolved;
  return { ...resolved, passThrough: { ...resolved, handler: raw.handler, validateInput: undefined } };
}

function unimplemented(typeName: string, method: string): GatewayHandler {
  return () => {
    const error = new Error(`${typeName}.${method} has no handler (UNIMPLEMENTED)`) as Error & { code: number };
    error.code = 12;
    throw error;
  };
}
