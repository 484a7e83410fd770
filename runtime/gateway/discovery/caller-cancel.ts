/**
 * How forwarding learns that its caller cancelled: through the context's
 * side door (core/cancellation.ts) when the transport offers one, else
 * through `context.signal` (abort-fanout.ts).
 */
import { CANCELLATION, type MaybeCancellable } from '../../core/cancellation';
import type { RequestContext } from '../../core/request-context';
import { unwatchAbort, watchAbort } from './abort-fanout';

/** True once the caller cancelled the call. */
export function callerCancelled(context: RequestContext): boolean {
  const door = (context as MaybeCancellable)[CANCELLATION];
  return door === undefined ? context.signal.aborted : door.cancelled;
}

/** Runs `listener` when the caller cancels, until `unwatchCaller(context, listener)`. */
export function watchCaller(context: RequestContext, listener: () => void): void {
  const door = (context as MaybeCancellable)[CANCELLATION];
  if (door === undefined) watchAbort(context.signal, listener);
  else door.onCancel(listener);
}

export function unwatchCaller(context: RequestContext, listener: () => void): void {
  const door = (context as MaybeCancellable)[CANCELLATION];
  if (door === undefined) unwatchAbort(context.signal, listener);
  else door.offCancel(listener);
}
