/**
 * The circuit breaker family (STYLE.md 12): one breaker per instance decides
 * whether calls may go to it. `closed` admits every call; `open` admits none
 * (the instance failed or froze); `half_open` admits a few trial calls, whose
 * outcome closes or reopens it. A member is a {@link CircuitBreakerKind} that
 * makes breakers; `resolveCircuitBreaker` (index.ts) picks one by name,
 * options or instance.
 */

export type CircuitState = 'closed' | 'open' | 'half_open';

/** Told of every state change, with the reason (for metrics and logs). */
export type CircuitListener = (from: CircuitState, to: CircuitState, reason: string) => void;

export interface CircuitBreaker {
  readonly state: CircuitState;
  /** True when a call may go to the instance now. */
  admits(): boolean;
  /** A call was sent to the instance (half-open counts its trials). */
  onAttempt(): void;
  /** The instance answered (any status of its own). */
  onSuccess(): void;
  /** The instance did not answer: connection refused or lost, deadline passed. */
  onFailure(reason: string): void;
  /** Opens at once: the instance is unresponsive (no answer to a liveness ping). */
  trip(reason: string): void;
  /** Open for long enough that the instance should be probed again. */
  probeDue(now: number): boolean;
  /** A probe found the instance alive: trial calls may go to it. */
  halfOpen(reason: string): void;
}

/** Makes one breaker per instance. */
export interface CircuitBreakerKind {
  readonly name: string;
  create(listener: CircuitListener): CircuitBreaker;
}
