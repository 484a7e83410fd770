/**
 * Service- and method-level rate limits (`{requests, window}`), counted per
 * client address by the call core's one limiter (rpc/fixed-window-limiter.ts).
 */
import { FixedWindowLimiter } from '../rpc/fixed-window-limiter';
import type { RateLimitConfig } from './types';

export { FixedWindowLimiter } from '../rpc/fixed-window-limiter';

/** The limiter of one `{requests, window}` rule; throws a TypeError for a rule that is not one. */
export function limiterFor(config: RateLimitConfig): FixedWindowLimiter {
  if (!Number.isFinite(config.requests) || config.requests < 0) throw new TypeError('rateLimit.requests must be a non-negative number');
  if (!Number.isFinite(config.window) || config.window <= 0) throw new TypeError('rateLimit.window must be a positive number of milliseconds');
  return new FixedWindowLimiter(config.requests, config.window);
}
