/**
 * What a transport adapter gets from the gateway: dispatch, the event bus for
 * connection/message/buffer events, the optional user error renderer and the
 * trace header name. Transports depend on this interface only, never on
 * ProtocolGateway or on each other.
 */
import type { ClientInfo, Protocol, RequestContext, TracingInfo } from '../core/request-context';
import type { Dispatcher } from './dispatch';
import type { ServiceError } from './errors';
import type { GatewayEvent } from './extension-points';

/** The gateway as a transport sees it. */
export interface GatewayCore {
  readonly dispatcher: Dispatcher;
  /** True when someone listens to events; transports skip building them otherwise. */
  readonly observed: boolean;
  emit(event: GatewayEvent): void;
  /** The user's `configureErrorHandling({transformError})` output, or undefined for the default rendering. */
  renderError(error: ServiceError, protocol: Protocol): unknown;
  /** Lower-case HTTP header carrying the trace id (monitoring's correlationHeader or `x-trace-id`). */
  readonly traceHeader: string;
}

let connectionSeq = 0;

/** A process-unique connection id, e.g. `tcp-42`. */
export function nextConnectionId(protocol: Protocol): string {
  connectionSeq = (connectionSeq + 1) % Number.MAX_SAFE_INTEGER;
  return `${protocol}-${connectionSeq}`;
}

/**
 * Builds a RequestContext with every field present (fixed shape across calls).
 */
export function createContext(
  protocol: Protocol,
  client: ClientInfo,
  headers: Record<string, string>,
  metadata: Record<string, unknown>,
  tracing: TracingInfo,
  signal: AbortSignal,
): RequestContext {
  return { protocol, client, headers, metadata, authentication: undefined, tracing, signal };
}
