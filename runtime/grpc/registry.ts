/**
 * The services of `server.grpc()` as the call core hosts them: each method
 * binding gets its ResolvedMethod (the core's shape) and the service goes
 * into its app's registry (rpc/registry.ts, the gateway's type too). A
 * process-wide index lets `createGrpcTestClient(name)` find the application
 * a service was added to without a socket; the latest registration of a
 * name wins, and both `user.UserService` and `UserService` find it.
 */
import type { RequestContext } from '../core/request-context';
import type { RpcCall } from '../rpc/call-types';
import { ServiceErrors } from '../rpc/error-catalogue';
import type { ResolvedMethod } from '../rpc/resolved-method';
import type { GrpcCall } from './call';
import { GrpcRequestContext } from './grpc-request-context';
import type { MethodBinding, ServiceBinding } from './method-binding';
import type { CallPipeline } from './pipeline';

/** A service together with the middleware pipeline of the app that serves it. */
export interface HostedService {
  readonly service: ServiceBinding;
  readonly pipeline: CallPipeline;
  /** Looks up a method by PascalCase or camelCase name. */
  method(name: string): MethodBinding | undefined;
}

const hosted = new Map<string, HostedService>();

/** Records `entry` under its full and short names. */
export function registerHostedService(entry: HostedService): void {
  hosted.set(entry.service.name, entry);
  const short = entry.service.name.slice(entry.service.name.lastIndexOf('.') + 1);
  hosted.set(short, entry);
}

/** The latest registration of `name`, if any. */
export function findHostedService(name: string): HostedService | undefined {
  return hosted.get(name);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

async function* fromSync(items: Iterable<unknown>): AsyncGenerator<unknown> {
  yield* items;
}

/**
 * A streaming handler's result as a stream: a sync iterable (an array) is
 * taken as a convenience; anything else not iterable fails as on every
 * transport, its path kept for onUnexpectedError's report.
 */
function asStream(result: unknown, path: string): unknown {
  if (isAsyncIterable(result)) return result;
  if (typeof result === 'object' && result !== null && typeof (result as Iterable<unknown>)[Symbol.iterator] === 'function') return fromSync(result as Iterable<unknown>);
  throw Object.assign(ServiceErrors.notIterable(), { path });
}

/** The form's invoker as the core calls it, with the GrpcCall; a stream's result checked as a stream. */
function callInvoker(binding: MethodBinding): (call: RpcCall) => unknown {
  if (binding.streaming === 'server' || binding.streaming === 'bidirectional') {
    return (call) => {
      const result = binding.invoke(call as GrpcCall);
      return typeof (result as PromiseLike<unknown> | null)?.then === 'function' ? Promise.resolve(result).then((value) => asStream(value, binding.path)) : asStream(result, binding.path);
    };
  }
  return (call) => binding.invoke(call as GrpcCall);
}

function resolvedMethod(binding: MethodBinding): ResolvedMethod {
  const invokeCall = callInvoker(binding);
  return {
    service: binding.service,
    method: binding.method,
    streaming: binding.streaming,
    // The core calls `invokeCall` with the GrpcCall; `handler` is the same for callers holding only a context.
    handler: (_request: never, context: RequestContext) => invokeCall((context as GrpcRequestContext).source as GrpcCall),
    invokeCall,
    policy: undefined,
    authentication: undefined,
    limiter: undefined,
    // The forms check requests themselves (request-checks.ts), where they decode them.
    validateInput: undefined,
    validateOutput: undefined,
    fromJSON: undefined,
    toJSON: undefined,
    descriptor: undefined,
    fromBinary: undefined,
    paramValue: undefined,
    invalidItems: 'fail',
    direct: true,
    passThrough: undefined,
  };
}

/** A HostedService over `service` and `pipeline`; its methods are registered with the pipeline's core. */
export function hostService(service: ServiceBinding, pipeline: CallPipeline): HostedService {
  const methods = service.methods.map((m): MethodBinding => ({ ...m, resolved: resolvedMethod(m) }));
  const bound: ServiceBinding = { ...service, methods };
  pipeline.registry.add({ name: service.name, descriptor: undefined, methods: methods.map((m) => m.resolved as ResolvedMethod) });
  const byName = new Map<string, MethodBinding>();
  for (const method of methods) {
    byName.set(method.method, method);
    byName.set(method.method.charAt(0).toLowerCase() + method.method.slice(1), method);
  }
  return { service: bound, pipeline, method: (name) => byName.get(name) };
}
