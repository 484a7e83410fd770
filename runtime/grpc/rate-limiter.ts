/**
 * `RateLimiter` for gRPC middleware: calls counted per key in fixed windows,
 * the key being the caller's address unless `keyGenerator` says otherwise.
 * It counts with the call core's one limiter (rpc/fixed-window-limiter.ts),
 * the gateway's `rateLimit` too.
 */
import { FixedWindowLimiter } from '../rpc/fixed-window-limiter';
import { splitPeer } from './peer-address';

/** What `checkLimit` needs of a call: its peer (GrpcCall fits). */
export interface RateLimitedCall {
  getPeer(): string;
}

/** Options of `new RateLimiter()`. */
export interface RateLimiterOptions<C extends RateLimitedCall = RateLimitedCall> {
  /** Window length in ms. */
  windowMs: number;
  /** Calls allowed per key per window. */
  max: number;
  /** Key of a call; default: the peer's IP address. */
  keyGenerator?: (call: C) => string;
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
  readonly #limiter: FixedWindowLimiter;
  readonly #keyOf: (call: C) => string;

  constructor(options: RateLimiterOptions<C>) {
    if (!(Number.isFinite(options.windowMs) && options.windowMs > 0)) throw new RangeError('RateLimiter: windowMs must be a positive number');
    if (!(Number.isInteger(options.max) && options.max >= 0)) throw new RangeError('RateLimiter: max must be a non-negative integer');
    // The call core's one limiter, as the gateway's rateLimit counts.
    this.#limiter = new FixedWindowLimiter(options.max, options.windowMs);
    this.#keyOf = options.keyGenerator ?? ((call) => splitPeer(call.getPeer()).address);
  }

  /** Counts the call; true while its key is within `max` calls this window, false once over. */
  checkLimit(call: C): boolean {
    return this.#limiter.take(this.#keyOf(call)) === 0;
  }

  /** Calls left for `call`'s key in the current window. */
  remaining(call: C): number {
    return this.#limiter.remaining(this.#keyOf(call));
  }
}
