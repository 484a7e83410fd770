/**
 * `rateLimit({windowMs, max})`: express-rate-limit, counting per client IP,
 * answering 429 with `Retry-After` and `RateLimit-*` headers through the
 * app's error handling. The default store is in memory; pass
 * {@link redisRateLimitStore} to share one limit across instances.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ipKeyGenerator, rateLimit as expressRateLimit, type Options, type Store } from 'express-rate-limit';
import { MiddlewareError } from './middleware-error';
import type { ConnectHandler, NextFunction } from './types';

/** A hit counter shared by the requests a limiter sees (express-rate-limit's `Store`). */
export type RateLimitStore = Store;

/** Options of {@link rateLimit} (spec 4.2, 8.5). */
export interface RateLimitOptions {
  /** Window length in ms. Default 60 000. */
  windowMs?: number;
  /** Requests allowed per client per window. Default 100. */
  max?: number;
  /** Where hits are counted. Default in memory (one process). */
  store?: RateLimitStore;
  /** Identifies the client; default its IP address (IPv6 grouped by /56). */
  keyGenerator?: (req: IncomingMessage) => string | Promise<string>;
  /** Message of the 429 `{ error }`. */
  message?: string;
  /** Return true to not count a request. */
  skip?: (req: IncomingMessage) => boolean | Promise<boolean>;
  /** Which RateLimit header draft to send. Default `'draft-6'` (`RateLimit-Limit`, `-Remaining`, `-Reset`, `RateLimit-Policy`). */
  standardHeaders?: 'draft-6' | 'draft-7' | 'draft-8' | false;
  /** Also send the older `X-RateLimit-*` headers. Default false. */
  legacyHeaders?: boolean;
}

interface PeerRequest extends IncomingMessage {
  ip?: string;
}

function clientAddress(req: IncomingMessage): string {
  const address = (req as PeerRequest).ip ?? req.socket.remoteAddress;
  return address === undefined ? 'unknown' : ipKeyGenerator(address);
}

/**
 * Limits each client to `max` requests per `windowMs`; the next request
 * gets 429 `{ error }` with `Retry-After`.
 *
 * @example
 * import { rateLimit } from 'fw/middleware';
 * app.use('/api', rateLimit({ windowMs: 15 * 60 * 1000, max: 100 }));
 */
export function rateLimit(options: RateLimitOptions = {}): ConnectHandler {
  const windowMs = options.windowMs ?? 60_000;
  const max = options.max ?? 100;
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new TypeError(`rateLimit windowMs must be a positive number, got ${String(windowMs)}`);
  if (!Number.isInteger(max) || max < 0) throw new TypeError(`rateLimit max must be a non-negative integer, got ${String(max)}`);
  const seconds = Math.ceil(windowMs / 1000);
  const message = options.message ?? `Too many requests: at most ${max} per ${seconds} s; retry after the time in Retry-After`;
  const keyGenerator = options.keyGenerator ?? clientAddress;
  const skip = options.skip;

  const settings: Partial<Options> = {
    windowMs,
    limit: max,
    standardHeaders: options.standardHeaders ?? 'draft-6',
    legacyHeaders: options.legacyHeaders ?? false,
    keyGenerator: (req) => keyGenerator(req),
    ...(skip === undefined ? {} : { skip: (req) => skip(req) }),
    ...(options.store === undefined ? {} : { store: options.store }),
    // Refuse through next() so the app's error handler writes `{ error }` like every other refusal.
    handler: (_req, _res, next) => next(new MiddlewareError(429, message, 'rate.limited')),
  };
  const limiter = expressRateLimit(settings);
  return function fwRateLimit(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    void (limiter as unknown as (req: IncomingMessage, res: ServerResponse, next: NextFunction) => Promise<void>)(req, res, next);
  };
}
