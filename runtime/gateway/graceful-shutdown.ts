/**
 * The drain behind `gateway.close()` and a host app's `close()`: refuse new
 * calls (503 / UNAVAILABLE), let every transport finish what is in flight —
 * HTTP with `Connection: close`, WebSocket close 1001 after its calls, gRPC
 * GOAWAY, TCP replies then FIN, UDP replies — and, past the timeout, end
 * every open stream with its protocol's UNAVAILABLE error, cut the
 * connections (which aborts the handlers' signals) and still wait for the
 * handlers to settle, so nothing runs on after close() resolved.
 */
import type { CallCore } from '../rpc/call-core';
import { ServiceErrors } from './errors';
import type { StreamListener } from './stream-listener';
import type { TransportAdapter } from './transport-adapter';

/** `close()` lets calls finish for this long (ms) by default. */
export const DEFAULT_SHUTDOWN_TIMEOUT = 10_000;

/** Everything one drain stops: the transports built so far; `listener` only when the gateway owns its port. */
export interface DrainTargets {
  dispatcher: CallCore;
  listener: StreamListener | undefined;
  adapters: readonly TransportAdapter[];
}

/** Cuts every adapter's connections now; resolves once those that close asynchronously (UDP's socket) have. */
export async function closeAdapters(adapters: readonly TransportAdapter[]): Promise<void> {
  await Promise.all(adapters.map((adapter) => adapter.close()));
}

/** Throws a RangeError for a timeout that is not a non-negative number of ms. */
export function checkShutdownTimeout(value: number | undefined): number | undefined {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) throw new RangeError(`shutdownTimeout must be a non-negative number of ms, got ${String(value)}`);
  return value;
}

/** Drains every target; past `timeoutMs` cuts every connection and waits for the handlers. */
export async function drainGateway(t: DrainTargets, timeoutMs: number): Promise<void> {
  t.dispatcher.setDraining(true);
  const settled = t.dispatcher.settled();
  const drained = Promise.all([t.listener?.drainHttp(), ...t.adapters.map((adapter) => adapter.drain(settled)), settled]);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    drained.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (!timedOut) return;
  // Every open stream ends with its protocol's UNAVAILABLE first, never a bare cut; a turn lets those bytes leave.
  t.dispatcher.endStreams(ServiceErrors.streamDrained());
  await new Promise((resolve) => setImmediate(resolve));
  // Cutting the connections aborts the handlers' signals; close() still waits for them to settle.
  const closing = closeAdapters(t.adapters);
  void t.listener?.close();
  await closing;
  await t.dispatcher.settled();
}
