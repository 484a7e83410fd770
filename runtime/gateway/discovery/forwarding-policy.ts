/**
 * The forwarding options of a discovery config, checked once and filled with
 * defaults: deadline, retries, hedging, bulkhead, circuit breaker, liveness.
 * A bad value fails at configure time, naming its key.
 */
import { resolveCircuitBreaker, type CircuitBreakerKind } from './circuit-breakers';
import { DiscoveryConfigError, type ForwardingOptions } from './discovery-config';

export interface ForwardingPolicy {
  readonly deadlineMs: number;
  /** Attempts an idempotent call may make (1: no retries). */
  readonly maxAttempts: number;
  /** Hedge delay for idempotent unary calls; undefined: no hedging. */
  readonly hedgeDelayMs: number | undefined;
  readonly hedgeMaxAttempts: number;
  readonly maxInFlight: number;
  readonly breaker: CircuitBreakerKind;
  /** undefined: no liveness pings. */
  readonly stallMs: number | undefined;
  readonly pingTimeoutMs: number;
}

export const DEFAULT_DEADLINE_MS = 10_000;

function positive(value: unknown, fallback: number, key: string, integer = false): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new DiscoveryConfigError(`forwarding.${key}: expected a positive ${integer ? 'integer' : 'number'}, got ${String(value)}`);
  }
  return v;
}

export function forwardingPolicy(options: ForwardingOptions = {}): ForwardingPolicy {
  const retry = options.retry === false ? { maxAttempts: 1 } : (options.retry ?? {});
  const hedging = options.hedging === false ? undefined : options.hedging;
  const bulkhead = options.bulkhead === false ? { maxInFlight: Infinity } : (options.bulkhead ?? {});
  const liveness = options.liveness === false ? undefined : (options.liveness ?? {});
  let breaker: CircuitBreakerKind;
  try {
    breaker = resolveCircuitBreaker(options.circuitBreaker);
  } catch (e) {
    throw new DiscoveryConfigError((e as Error).message.startsWith('forwarding.') ? (e as Error).message : `forwarding.${(e as Error).message}`);
  }
  return {
    deadlineMs: positive(options.deadlineMs, DEFAULT_DEADLINE_MS, 'deadlineMs'),
    maxAttempts: positive(retry.maxAttempts, 3, 'retry.maxAttempts', true),
    hedgeDelayMs: hedging === undefined ? undefined : positive(hedging.delayMs, 0, 'hedging.delayMs'),
    hedgeMaxAttempts: hedging === undefined ? 1 : positive(hedging.maxAttempts, 2, 'hedging.maxAttempts', true),
    maxInFlight: bulkhead.maxInFlight === Infinity ? Infinity : positive(bulkhead.maxInFlight, 1000, 'bulkhead.maxInFlight', true),
    breaker,
    stallMs: liveness === undefined ? undefined : positive(liveness.stallMs, 500, 'liveness.stallMs'),
    pingTimeoutMs: positive(liveness?.pingTimeoutMs, 800, 'liveness.pingTimeoutMs'),
  };
}
