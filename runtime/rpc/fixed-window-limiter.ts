/**
 * The one rate limiter: calls counted per key in fixed windows. The gateway's
 * `rateLimit: {requests, window}` (services, methods, UDP datagrams) and
 * fw/grpc's `RateLimiter` middleware both count with it. Memory stays
 * bounded: a window's counters are dropped wholesale when it rolls over, and
 * the keys tracked per window are capped (beyond it, unknown keys share one
 * bucket).
 */

const MAX_TRACKED_KEYS = 100_000;
const OVERFLOW_KEY = '\0overflow';

/** A fixed-window counter for one limit. The caller validates the numbers (its options have their own names). */
export class FixedWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  #windowStart = 0;
  #counts = new Map<string, number>();

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Counts one call for `key`; returns 0 when allowed, otherwise the ms until the window resets. */
  take(key: string, now = Date.now()): number {
    this.#roll(now);
    let k = key;
    if (!this.#counts.has(k) && this.#counts.size >= MAX_TRACKED_KEYS) k = OVERFLOW_KEY;
    const used = (this.#counts.get(k) ?? 0) + 1;
    this.#counts.set(k, used);
    if (used > this.#limit) return Math.max(1, this.#windowStart + this.#windowMs - now);
    return 0;
  }

  /** Calls left for `key` in the current window. */
  remaining(key: string, now = Date.now()): number {
    this.#roll(now);
    return Math.max(0, this.#limit - (this.#counts.get(key) ?? 0));
  }

  #roll(now: number): void {
    if (now - this.#windowStart < this.#windowMs) return;
    this.#windowStart = now - ((now - this.#windowStart) % this.#windowMs);
    if (now - this.#windowStart >= this.#windowMs) this.#windowStart = now;
    this.#counts = new Map();
  }
}
