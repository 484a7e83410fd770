/**
 * Service- and method-level rate limits (`{requests, window}`), counted per
 * client address in fixed windows. Memory stays bounded: a window's counters
 * are dropped wholesale when the window rolls over, and the number of tracked
 * clients per window is capped (beyond it, unknown clients share one bucket).
 */
import type { RateLimitConfig } from './types';

const MAX_TRACKED_KEYS = 100_000;
const OVERFLOW_KEY = '\0overflow';

/** A fixed-window counter for one `{requests, window}` rule. */
export class FixedWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  #windowStart = 0;
  #counts = new Map<string, number>();

  constructor(config: RateLimitConfig) {
    if (!Number.isFinite(config.requests) || config.requests < 0) throw new TypeError('rateLimit.requests must be a non-negative number');
    if (!Number.isFinite(config.window) || config.window <= 0) throw new TypeError('rateLimit.window must be a positive number of milliseconds');
    this.#limit = config.requests;
    this.#windowMs = config.window;
  }

  /**
   * Counts one call for `key`; returns 0 when allowed, otherwise the ms until
   * the window resets.
   */
  take(key: string, now = Date.now()): number {
    if (now - this.#windowStart >= this.#windowMs) {
      this.#windowStart = now - ((now - this.#windowStart) % this.#windowMs);
      if (now - this.#windowStart >= this.#windowMs) this.#windowStart = now;
      this.#counts = new Map();
    }
    let k = key;
    if (!this.#counts.has(k) && this.#counts.size >= MAX_TRACKED_KEYS) k = OVERFLOW_KEY;
    const used = (this.#counts.get(k) ?? 0) + 1;
    this.#counts.set(k, used);
    if (used > this.#limit) return Math.max(1, this.#windowStart + this.#windowMs - now);
    return 0;
  }
}
