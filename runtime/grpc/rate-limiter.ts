/**
 * `RateLimiter` for gRPC middleware (spec 8.5): a fixed window per key, the
 * key being the caller's address unless `keyGenerator` says otherwise.
 * Windows of keys that stopped calling are swept, so memory stays bounded by
 * the callers of the current window.
 */
import { splitPeer } from './peer-address';

/** What `checkLimit` needs of a call: its peer (GrpcCall fits). */
export interface RateLimitedCall {
  getPeer(): string;
}

/** Options of `new RateLimiter()` (spec 8.5). */
export interface RateLimiterOptions<C extends RateLimitedCall = RateLimitedCall> {
  /** Window length in ms. */
  windowMs: number;
  /** Calls allowed per key per window. */
  max: number;
  /** Key of a call; default: the peer's IP address. */
  keyGenerator?: (call: C) => string;
}

interface Window {
  startedAt: number;
  count: number;
}

/**
 * @example
 * import { RateLimiter, GrpcError, GrpcStatus } from 'fw/grpc';
 * const limiter = new RateLimiter({ windowMs: 60_000, max: 100, keyGenerator: (call) => call.getPeer() });
 * app.use(async (call, next) => {
 *   if (!limiter.checkLimit(call)) throw new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, 'Rate limit exceeded');
 *   return next();
 * });
 */
export class RateLimiter<C extends RateLimitedCall = RateLimitedCall> {
  readonly #windowMs: number;
  readonly #max: number;
  readonly #keyOf: (call: C) => string;
  #windows = new Map<string, Window>();
  #sweptAt = Date.now();

  constructor(options: RateLimiterOptions<C>) {
    if (!(Number.isFinite(options.windowMs) && options.windowMs > 0)) throw new RangeError('RateLimiter: windowMs must be a positive number');
    if (!(Number.isInteger(options.max) && options.max >= 0)) throw new RangeError('RateLimiter: max must be a non-negative integer');
    this.#windowMs = options.windowMs;
    this.#max = options.max;
    this.#keyOf = options.keyGenerator ?? ((call) => splitPeer(call.getPeer()).address);
  }

  /** Counts the call; true while its key is within `max` calls this window, false once over. */
  checkLimit(call: C): boolean {
    const now = Date.now();
    this.#sweep(now);
    const key = this.#keyOf(call);
    let window = this.#windows.get(key);
    if (window === undefined || now - window.startedAt >= this.#windowMs) {
      window = { startedAt: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return window.count <= this.#max;
  }

  /** Calls left for `call`'s key in the current window. */
  remaining(call: C): number {
    const window = this.#windows.get(this.#keyOf(call));
    if (window === undefined || Date.now() - window.startedAt >= this.#windowMs) return this.#max;
    return Math.max(0, this.#max - window.count);
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < this.#windowMs) return;
    this.#sweptAt = now;
    for (const [key, window] of this.#windows) if (now - window.startedAt >= this.#windowMs) this.#windows.delete(key);
  }
}
