/**
 * A method as the call core runs it, whatever form it was registered in
 * (a gateway's inline or descriptor service, `server.grpc()`'s three forms,
 * a method found through discovery): computed once at registration.
 */
import type { InvalidItemPolicy } from '../validation/stream-items';
import type { ServiceAuthenticationConfig } from './access-policy';
import type { CallInterceptor, RpcCall, RpcHandler, Validator } from './call-types';
import type { MethodDescriptor, ServiceDescriptor, StreamingMode } from './descriptor';
import type { FixedWindowLimiter } from './fixed-window-limiter';

/** A service's call-wide settings, shared by its methods. */
export interface ServicePolicy {
  readonly name: string;
  readonly middleware: readonly CallInterceptor[];
  readonly authentication: ServiceAuthenticationConfig | undefined;
  readonly limiter: FixedWindowLimiter | undefined;
}

/** Everything the core needs to run one method. */
export interface ResolvedMethod {
  readonly service: string;
  /** Name as registered (camelCase for descriptors). */
  readonly method: string;
  readonly streaming: StreamingMode;
  readonly handler: RpcHandler;
  readonly policy: ServicePolicy | undefined;
  readonly authentication: boolean | undefined;
  readonly limiter: FixedWindowLimiter | undefined;
  readonly validateInput: Validator | undefined;
  readonly validateOutput: Validator | undefined;
  /** Wire JSON → handler request (identity for inline services, the message gate's strict proto3 JSON for descriptors). */
  readonly fromJSON: ((json: unknown) => unknown) | undefined;
  /** Handler result → wire JSON (identity for inline services, the message gate's canonical proto3 JSON for descriptors). */
  readonly toJSON: ((value: unknown) => unknown) | undefined;
  /** Set for generated services: binary codecs for gRPC. */
  readonly descriptor: MethodDescriptor | undefined;
  /** Protobuf bytes → handler request (generated services; the gate keeps the bytes for validation). */
  readonly fromBinary: ((bytes: Uint8Array) => unknown) | undefined;
  /** A path/query parameter's string as its field's JSON wants it (generated services). */
  readonly paramValue: ((path: string, raw: string) => unknown) | undefined;
  /** Client/bidi streams: `fail` ends the call on an invalid item, `deliver` hands it over with its violations. */
  readonly invalidItems: InvalidItemPolicy;
  /** No limits, auth, output validation or middleware: the core may check the input and call the handler straight away. */
  readonly direct: boolean;
  /**
   * The same method forwarding protobuf bytes (RawMessage in and out), for
   * a forwarded service when nothing registered with it needs the decoded
   * message (the gateway's pass-through); the gRPC transport runs it for binary requests.
   */
  readonly passThrough: ResolvedMethod | undefined;
  /**
   * Set by adapters whose handlers take the call object itself
   * (`server.grpc()`'s forms): called with the call instead of `handler`, so
   * no RequestContext is built for handlers that never read one.
   */
  readonly invokeCall?: (call: RpcCall) => unknown;
}

/** A hosted service. */
export interface RegisteredService {
  readonly name: string;
  readonly descriptor: ServiceDescriptor | undefined;
  /** Canonical methods in registration order (no aliases). */
  readonly methods: readonly ResolvedMethod[];
}

/** Whether a method needs nothing around its handler. */
export function isDirect(m: Omit<ResolvedMethod, 'direct' | 'passThrough'>): boolean {
  const p = m.policy;
  return (
    p?.limiter === undefined &&
    m.limiter === undefined &&
    p?.authentication === undefined &&
    m.authentication !== true &&
    m.validateOutput === undefined &&
    (p === undefined || p.middleware.length === 0)
  );
}

/** A method found through discovery: the remote handler, nothing of the gateway's own around it. */
export function remoteMethod(service: string, method: string, streaming: StreamingMode, handler: RpcHandler): ResolvedMethod {
  return {
    service,
    method,
    streaming,
    handler,
    policy: undefined,
    authentication: undefined,
    limiter: undefined,
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
