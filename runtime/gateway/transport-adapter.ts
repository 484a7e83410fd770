/**
 * The one contract every gateway transport implements. An adapter reads a
 * call off its wire (its folder's call-reader.ts), hands it to the call core
 * (`GatewayCore.dispatcher`), and writes what comes back through a
 * {@link ReplySink} (its folder's reply-sink.ts); the facade, the one-port
 * listener, hosting on an fw app's port and graceful shutdown loop over the
 * adapters instead of naming each transport. A transport reaches the gateway
 * only through GatewayCore (gateway-core.ts) and the call core.
 * docs/architecture.md ("Adding a transport") lists the steps.
 */
import type { ServiceError } from '../rpc/service-error';

/** The wire forms the gateway serves, one folder each under runtime/gateway/. */
export type TransportName = 'http' | 'connect' | 'websocket' | 'grpc' | 'udp' | 'tcp';

/** A transport adapter as the gateway drives it. */
export interface TransportAdapter {
  /** Its folder's name. */
  readonly transport: TransportName;
  /**
   * Lets the calls in flight finish and refuses new ones; resolves once its
   * connections are done. `settled` resolves when every dispatched call has.
   */
  drain(settled: Promise<void>): Promise<void>;
  /** Cuts every connection now (the running handlers' signals abort). */
  close(): void | Promise<void>;
}

/**
 * Where one call's replies go, on any wire: the unary reply, a server
 * stream's items and end, or the call's failure. Response headers and
 * trailers the handler set through `context.call` travel where the wire has
 * room for them: headers with the first write, trailers with the last (HTTP
 * headers and `grpc-trailer-*`, Connect's end-of-stream `metadata`, gRPC-Web's
 * trailers envelope, the envelopes' `headers`/`trailers` fields). Once the
 * call is over, later writes are no-ops; no method throws.
 *
 * `Data` is what one message is at this point: the handler's value (HTTP,
 * the envelope transports) or its encoded bytes (Connect, gRPC-Web).
 */
export interface ReplySink<Data = unknown> {
  /** A unary call's one reply (also a client-streaming call's). */
  message(data: Data): void;
  /** One server-stream item; a promise while the peer is not reading (wait before the next). */
  item(data: Data): void | Promise<void>;
  /** A server stream's good end (with its trailers). */
  end(): void;
  /** The call failed: its error reply, or the stream's terminal error once items went out. */
  fail(error: ServiceError): void;
}
