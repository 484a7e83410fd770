/**
 * `resolveCircuitBreaker(nameOrOptionsOrKind)`: the breaker kind a discovery
 * config asks for — `'consecutive_failures'` (default) or its options,
 * `false` / `'off'`, or a user-made {@link CircuitBreakerKind}.
 */
import type { CircuitBreakerKind } from './base';
import { consecutiveFailures, type ConsecutiveFailuresOptions } from './consecutive-failures';
import { disabledBreaker } from './disabled';

export type { CircuitBreaker, CircuitBreakerKind, CircuitListener, CircuitState } from './base';
export type { ConsecutiveFailuresOptions } from './consecutive-failures';
export { CLOSED_BREAKER } from './disabled';

/** What `forwarding.circuitBreaker` accepts. */
export type CircuitBreakerSetting =
  | 'consecutive_failures'
  | 'off'
  | false
  | ConsecutiveFailuresOptions
  | CircuitBreakerKind;

function isKind(value: object): value is CircuitBreakerKind {
  return typeof (value as CircuitBreakerKind).create === 'function';
}

export function resolveCircuitBreaker(setting: CircuitBreakerSetting | undefined): CircuitBreakerKind {
  if (setting === undefined || setting === 'consecutive_failures') return consecutiveFailures();
  if (setting === false || setting === 'off') return disabledBreaker;
  if (typeof setting === 'object' && setting !== null) return isKind(setting) ? setting : consecutiveFailures(setting);
  throw new TypeError(`forwarding.circuitBreaker: unknown breaker "${String(setting)}" (known: consecutive_failures, off, options, or a kind with create())`);
}
