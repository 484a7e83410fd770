/** The runtime's idempotency levels (runtime/rpc/descriptor.ts), from a proto method's `idempotency_level` option. */
export type IdempotencyLevel = 'unknown' | 'no_side_effects' | 'idempotent';

/** Maps `MethodOptions.IdempotencyLevel` (0 unknown, 1 NO_SIDE_EFFECTS, 2 IDEMPOTENT) to the descriptor's `idempotency`. */
export function idempotencyOf(level: number): IdempotencyLevel {
  return level === 1 ? 'no_side_effects' : level === 2 ? 'idempotent' : 'unknown';
}
