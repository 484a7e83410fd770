/**
 * One 'abort' listener per signal, fanning out to every forwarded call made
 * under it. Transports may share one signal across all calls of a connection;
 * a listener per call would pile up (Node warns past 10 on one AbortSignal)
 * and cost an EventTarget registration per call. The watchers live on the
 * signal itself (a WeakMap keyed by every call's signal cost more than the
 * registration it saved, and weighed on garbage collection), and the one
 * listener is shared by all signals.
 */
const WATCHERS: unique symbol = Symbol('fw.abortWatchers');

type Watched = AbortSignal & { [WATCHERS]?: Set<() => void> };

const ONCE = { once: true } as const;

function runWatchers(this: unknown, event: Event): void {
  const signal = event.currentTarget as Watched;
  const set = signal[WATCHERS];
  if (set === undefined) return;
  signal[WATCHERS] = undefined;
  for (const fn of set) fn();
}

/** Runs `cancel` when `signal` aborts, until `unwatchAbort(signal, cancel)`. */
export function watchAbort(signal: AbortSignal, cancel: () => void): void {
  const watched = signal as Watched;
  let set = watched[WATCHERS];
  if (set === undefined) {
    set = new Set();
    watched[WATCHERS] = set;
    signal.addEventListener('abort', runWatchers, ONCE);
  }
  set.add(cancel);
}

/** Stops running `cancel` when `signal` aborts. */
export function unwatchAbort(signal: AbortSignal, cancel: () => void): void {
  (signal as Watched)[WATCHERS]?.delete(cancel);
}

/** Runs `cancel` when `signal` aborts; returns the function that stops watching. */
export function onAbort(signal: AbortSignal, cancel: () => void): () => void {
  watchAbort(signal, cancel);
  return () => unwatchAbort(signal, cancel);
}
