/**
 * The seams between the gateway core (registry, dispatch, transports) and the
 * features that plug into it: monitoring (metrics, tracing, logging) and
 * service discovery. The core calls these; monitoring/ and discovery/ implement
 * them. Neither side imports the other's internals.
 */
import type { Protocol } from '../core/request-context';
import type { CallInterceptor, RpcCall } from '../rpc/call-types';

/** One call as the core sees it, after the transport decoded it (rpc/call-types.ts). */
export type DispatchCall = RpcCall;

/** Wraps every call in onion order (rpc/call-types.ts). */
export type DispatchInterceptor = CallInterceptor;

export type { RemoteMethod, RemoteServiceResolver } from '../rpc/remote-resolver';

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
