/** The null breaker (`circuitBreaker: false`): always closed, calls go wherever the balancer sends them. */
import type { CircuitBreaker, CircuitBreakerKind } from './base';

const ALWAYS_CLOSED: CircuitBreaker = {
  state: 'closed',
  admits: () => true,
  onAttempt: () => undefined,
  onSuccess: () => undefined,
  onFailure: () => undefined,
  trip: () => undefined,
  probeDue: () => false,
  halfOpen: () => undefined,
};

export const disabledBreaker: CircuitBreakerKind = { name: 'off', create: () => ALWAYS_CLOSED };

/** The breaker an instance has before discovery gives it its own. */
export const CLOSED_BREAKER = ALWAYS_CLOSED;
