/**
 * Keeps one `process.nextTick` queue entry alive for the life of the process,
 * so that a server that idled after start-up does not serve every request
 * through a slow path inside Node.
 *
 * Node (20) builds each nextTick entry with an object literal whose first two
 * keys are computed (its async-id symbols). V8's inline cache for a computed
 * key in a literal remembers the object's map and has two states only:
 * monomorphic, a quick map check and store, or megamorphic, a call into the
 * runtime on every literal (`Runtime_DefineKeyedOwnPropertyInLiteral`). When a
 * process is idle long enough for V8's memory reducer to run, that collection
 * keeps no unused maps alive, so with no entry queued the intermediate maps of
 * the entry's shape die. The next entry builds new ones; the cache sees a map
 * it does not know and turns megamorphic for good. Streams queue several ticks
 * per HTTP request: on a bench server that idled ~10 s before its first load,
 * perf put 11–13% of its CPU in that runtime call and requests/s fell ~20%,
 * for the life of the process. A live entry keeps the whole chain of maps
 * alive, and the cache stays monomorphic (docs/http.md, "Performance").
 *
 * The entry is taken from `executionAsyncResource()` inside a tick: public
 * API, no async hooks.
 */
import { executionAsyncResource } from 'node:async_hooks';

let pinned: object | null = null;
let requested = false;

/** Pins a nextTick entry (once per process; later calls do nothing). Servers call it on `listen`. */
export function pinTickObjectShape(): void {
  if (requested) return;
  requested = true;
  process.nextTick(() => {
    pinned = executionAsyncResource();
  });
}

/** @internal The pinned entry, for tests: null until the tick queued by the first pin has run. */
export function pinnedTickObject(): object | null {
  return pinned;
}
