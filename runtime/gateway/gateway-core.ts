/**
 * What a transport adapter gets from the gateway: dispatch, the event bus for
 * connection/message/buffer events, the optional user error renderer and the
 * trace header name. Transports depend on this interface only, never on
 * ProtocolGateway or on each other.
 */
import { CollectedCallMetadata, incomingFromHeaders, type IncomingMetadata } from '../core/call-metadata';
import { CANCELLATION, type Cancellation } from '../core/cancellation';
import type { ClientInfo, Protocol, RequestContext, TracingInfo } from '../core/request-context';
import type { CallCore } from '../rpc/call-core';
import type { ServiceError } from './errors';
import type { GatewayEvent } from './extension-points';

/** The gateway as a transport sees it. */
export interface GatewayCore {
  readonly dispatcher: CallCore;
  /** True when someone listens to events; transports skip building them otherwise. */
  readonly observed: boolean;
  emit(event: GatewayEvent): void;
  /** The user's `configureErrorHandling({transformError})` output, or undefined for the default rendering. */
  renderError(error: ServiceError, protocol: Protocol): unknown;
  /** Lower-case HTTP header carrying the trace id (monitoring's correlationHeader or `x-trace-id`). */
  readonly traceHeader: string;
  /** Shutdown has begun: readiness (`/ready`, gRPC health) reports false while calls are still served (the drain delay). */
  readonly stopping: boolean;
}

let connectionSeq = 0;

/** A process-unique connection id, e.g. `tcp-42`. */
export function nextConnectionId(protocol: Protocol): string {
  connectionSeq = (connectionSeq + 1) % Number.MAX_SAFE_INTEGER;
  return `${protocol}-${connectionSeq}`;
}

/**
 * Builds a RequestContext with every field present (fixed shape across calls).
 * `incoming` gives the request metadata for `context.call` (default: the
 * headers, `-bin` values base64-decoded); it runs only if a handler asks.
 */
export function createContext(
  protocol: Protocol,
  client: ClientInfo,
  headers: Record<string, string>,
  metadata: Record<string, unknown>,
  tracing: TracingInfo,
  signal: AbortSignal | (() => AbortSignal),
  incoming?: () => IncomingMetadata,
  compressed?: () => boolean,
  cancellation?: Cancellation,
): RequestContext {
  const call = new CollectedCallMetadata(incoming ?? (() => incomingFromHeaders(headers)), compressed);
  // A function: the call's own signal, made on first read (session/call-cancellation.ts).
  if (typeof signal === 'function') return new LazySignalContext(protocol, client, headers, metadata, tracing, signal, call, cancellation);
  return { protocol, client, headers, metadata, authentication: undefined, tracing, signal, call };
}

/**
 * A context whose signal is made on first read. A class, not an object
 * literal with a getter: V8 builds such literals slowly and leaves them in
 * dictionary mode (measured: +3.5 µs per TCP call).
 */
class LazySignalContext implements RequestContext {
  authentication: RequestContext['authentication'] = undefined;
  /** Cancellation without the signal, for fw's forwarding (core/cancellation.ts). */
  readonly [CANCELLATION]: Cancellation | undefined;
  readonly #signal: () => AbortSignal;

  constructor(
    readonly protocol: Protocol,
    readonly client: ClientInfo,
    readonly headers: Record<string, string>,
    readonly metadata: Record<string, unknown>,
    readonly tracing: TracingInfo,
    signal: () => AbortSignal,
    readonly call: CollectedCallMetadata,
    cancellation: Cancellation | undefined,
  ) {
    this.#signal = signal;
    this[CANCELLATION] = cancellation;
  }

  get signal(): AbortSignal {
    return this.#signal();
  }
}
