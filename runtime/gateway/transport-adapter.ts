/**
 * The one interface every gateway transport implements. The facade, graceful
 * shutdown and the hosted drain loop over the adapters built so far instead
 * of naming each transport; a transport reaches the gateway only through
 * GatewayCore (gateway-core.ts) and the call core. docs/architecture.md
 * describes what an adapter does per call.
 */

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
