/**
 * The seams between the gateway core (registry, dispatch, transports) and the
 * features that plug into it: monitoring (metrics, tracing, logging) and
 * service discovery. The core calls these; monitoring/ and discovery/ implement
 * them. Neither side imports the other's internals.
 */
import type { Middleware } from '../core/compose';
import type { Protocol, RequestContext } from '../core/request-context';
import type { StreamingMode } from '../rpc/descriptor';

/** One call as dispatch sees it, after the transport decoded it. */
export interface DispatchCall {
  service: string;
  method: string;
  streaming: StreamingMode;
  /** Decoded request, or an async iterable of requests for client/bidi streaming. */
  request: unknown;
  context: RequestContext;
}

/**
 * Wraps dispatch in onion order (core/compose). The result is the handler's
 * result: a value, or an async iterable for server/bidi streaming. A failing
 * call rejects with the error the transport will translate.
 */
export type DispatchInterceptor = Middleware<DispatchCall, unknown>;

/** Transport-level happenings that no single call sees. */
export type GatewayEvent =
  | { type: 'connection-open'; protocol: Protocol; connectionId: string }
  | { type: 'connection-close'; protocol: Protocol; connectionId: string; durationMs: number }
  | { type: 'message'; protocol: Protocol; direction: 'in' | 'out'; bytes: number; connectionId?: string }
  | { type: 'buffer'; protocol: Protocol; connectionId: string; bufferedBytes: number; limitBytes: number }
  /** A slow consumer cut because the gateway-wide output cap was passed (output-budget.ts). */
  | { type: 'slow-consumer-cut'; protocol: Protocol; connectionId: string; bufferedBytes: number; totalBytes: number; limitBytes: number }
  /** A decision service discovery took: retry, hedge, circuit change, backend lost… (discovery/forwarding-events.ts). */
  | { type: 'discovery'; service: string; decision: string; instance: string | undefined; reason: string };

export interface GatewayEventSink {
  onEvent(event: GatewayEvent): void;
}

/** A remote handler found through discovery, called exactly like a local one. */
export interface RemoteMethod {
  streaming: StreamingMode;
  handler: (request: unknown, context: RequestContext) => unknown;
  /** The same method forwarding protobuf bytes as they are (RawMessage in, RawMessage out: pass-through.ts), when its wire is protobuf. */
  passThrough?: (request: unknown, context: RequestContext) => unknown;
}

/** Looks up services the gateway does not host itself (service discovery). */
export interface RemoteServiceResolver {
  /** The method, or undefined when the service/method is not discovered. */
  resolve(service: string, method: string): RemoteMethod | undefined;
  /** Resolves once every discovered service has its first instance list (or its provider's start timeout passed). */
  ready?(): Promise<void>;
  /** Readiness detail for `GET /ready`. */
  status?(): { ready: boolean; services: Record<string, unknown> };
  close(): Promise<void>;
}
