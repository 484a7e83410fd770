/**
 * The default breaker: `failureThreshold` consecutive failures (or one failed
 * liveness ping) open it; after `openMs` the instance is probed and, if alive,
 * `halfOpenCalls` trial calls go to it: one success closes the breaker, one
 * failure opens it again. Counts, not rates: a frozen instance is cut off
 * after a handful of calls however little traffic there is.
 */
import type { CircuitBreaker, CircuitBreakerKind, CircuitListener, CircuitState } from './base';

export interface ConsecutiveFailuresOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long it stays open before the instance is probed, in ms. Default 2000. */
  openMs?: number;
  /** Trial calls admitted while half-open. Default 1. */
  halfOpenCalls?: number;
}

class ConsecutiveFailuresBreaker implements CircuitBreaker {
  state: CircuitState = 'closed';
  #failures = 0;
  #openedAt = 0;
  #trials = 0;
  readonly #threshold: number;
  readonly #openMs: number;
  readonly #halfOpenCalls: number;
  readonly #listener: CircuitListener;

  constructor(threshold: number, openMs: number, halfOpenCalls: number, listener: CircuitListener) {
    this.#threshold = threshold;
    this.#openMs = openMs;
    this.#halfOpenCalls = halfOpenCalls;
    this.#listener = listener;
  }

  admits(): boolean {
    return this.state === 'closed' || (this.state === 'half_open' && this.#trials < this.#halfOpenCalls);
  }

  onAttempt(): void {
    if (this.state === 'half_open') this.#trials++;
  }

  onSuccess(): void {
    this.#failures = 0;
    if (this.state !== 'closed') this.#move('closed', 'a call succeeded');
  }

  onFailure(reason: string): void {
    this.#failures++;
    if (this.state === 'half_open' || (this.state === 'closed' && this.#failures >= this.#threshold)) {
      this.trip(this.state === 'half_open' ? `trial call failed: ${reason}` : `${this.#failures} consecutive failures, the last: ${reason}`);
    }
  }

  trip(reason: string): void {
    this.#openedAt = Date.now();
    this.#trials = 0;
    if (this.state !== 'open') this.#move('open', reason);
  }

  probeDue(now: number): boolean {
    return this.state === 'open' && now - this.#openedAt >= this.#openMs;
  }

  halfOpen(reason: string): void {
    if (this.state !== 'open') return;
    this.#trials = 0;
    this.#move('half_open', reason);
  }

  #move(to: CircuitState, reason: string): void {
    const from = this.state;
    this.state = to;
    this.#listener(from, to, reason);
  }
}

function positive(value: number | undefined, fallback: number, name: string, integer: boolean): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) throw new TypeError(`circuitBreaker.${name}: expected a positive ${integer ? 'integer' : 'number'}, got ${String(value)}`);
  return v;
}

/** The consecutive-failures kind with `options`; throws TypeError naming a bad option. */
export function consecutiveFailures(options: ConsecutiveFailuresOptions = {}): CircuitBreakerKind {
  const threshold = positive(options.failureThreshold, 5, 'failureThreshold', true);
  const openMs = positive(options.openMs, 2000, 'openMs', false);
  const halfOpenCalls = positive(options.halfOpenCalls, 1, 'halfOpenCalls', true);
  return { name: 'consecutive_failures', create: (listener) => new ConsecutiveFailuresBreaker(threshold, openMs, halfOpenCalls, listener) };
}
