/**
 * Listeners kept as one function in the usual case of one, and as a Set only
 * when a second arrives: per-call cancel hooks register one listener almost
 * always, and a Set per call would cost more than the work it guards.
 */
export type ListenerSlot = (() => void) | Set<() => void> | undefined;

/** `slot` with `listener` added (store the result back). */
export function addListener(slot: ListenerSlot, listener: () => void): ListenerSlot {
  if (slot === undefined) return listener;
  if (typeof slot === 'function') return new Set([slot, listener]);
  slot.add(listener);
  return slot;
}

/** `slot` without `listener` (store the result back). */
export function removeListener(slot: ListenerSlot, listener: () => void): ListenerSlot {
  if (slot === listener) return undefined;
  if (typeof slot === 'object') slot.delete(listener);
  return slot;
}

/** Runs every listener in `slot`. */
export function runListeners(slot: ListenerSlot): void {
  if (typeof slot === 'function') slot();
  else if (slot !== undefined) for (const listener of slot) listener();
}
