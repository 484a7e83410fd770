/**
 * One 'abort' listener per signal, fanning out to every forwarded call made
 * under it. Transports may share one signal across all calls of a connection;
 * a listener per call would pile up (Node warns past 10 on one AbortSignal)
 * and cost an EventTarget registration per call.
 */
const callbacks = new WeakMap<AbortSignal, Set<() => void>>();

/** Runs `cancel` when `signal` aborts; returns the function that stops watching. */
export function onAbort(signal: AbortSignal, cancel: () => void): () => void {
  let set = callbacks.get(signal);
  if (set === undefined) {
    const fresh = new Set<() => void>();
    callbacks.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        callbacks.delete(signal);
        for (const fn of fresh) fn();
        fresh.clear();
      },
      { once: true },
    );
    set = fresh;
  }
  const entry = set;
  entry.add(cancel);
  return () => {
    entry.delete(cancel);
  };
}
