/**
 * One 'abort' listener per signal, fanning out to every forwarded call made
 * under it. Transports may share one signal across all calls of a connection;
 * a listener per call would pile up (Node warns past 10 on one AbortSignal)
 * and cost an EventTarget registration per call. The watchers live on the
 * signal itself (a WeakMap keyed by every call's signal cost more than the
 * registration it saved, and weighed on garbage collection), and the one
 * listener is shared by all signals.
 */
import { addListener, removeListener, runListeners, type ListenerSlot } from '../../core/listener-slot';

const WATCHERS: unique symbol = Symbol('fw.abortWatchers');
/** The signal has runWatchers as its 'abort' listener. */
const LISTENING: unique symbol = Symbol('fw.abortListening');

/** A signal's watchers: one function (the usual case: a signal per call), or a set of them. */
type Watched = AbortSignal & { [WATCHERS]?: ListenerSlot; [LISTENING]?: true };

const ONCE = { once: true } as const;

function runWatchers(this: unknown, event: Event): void {
  const signal = event.currentTarget as Watched;
  const watchers = signal[WATCHERS];
  signal[WATCHERS] = undefined;
  runListeners(watchers);
}

/** Runs `cancel` when `signal` aborts, until `unwatchAbort(signal, cancel)`. */
export function watchAbort(signal: AbortSignal, cancel: () => void): void {
  const watched = signal as Watched;
  watched[WATCHERS] = addListener(watched[WATCHERS], cancel);
  // One listener per signal, left in place when its watchers leave before an abort.
  if (watched[LISTENING] !== true) {
    watched[LISTENING] = true;
    signal.addEventListener('abort', runWatchers, ONCE);
  }
}

/** Stops running `cancel` when `signal` aborts. */
export function unwatchAbort(signal: AbortSignal, cancel: () => void): void {
  const watched = signal as Watched;
  watched[WATCHERS] = removeListener(watched[WATCHERS], cancel);
}
