/**
 * `rateLimit({windowMs, max})`: express-rate-limit, counting per client IP,
 * answering 429 with `Retry-After` and `RateLimit-*` headers through the
 * app's error handling. The default store is in memory; pass
 * {@link redisRateLimitStore} to share one limit across instances.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Options, Store } from 'express-rate-limit';
import { loadOptionalPeer } from '../core/optional-peer';
import { MiddlewareError } from './middleware-error';
import { storeUnavailable } from './redis-guard';
import { countStoreError } from './store-error-metric';
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
  /**
   * When the store fails (Redis down or slow): `true` lets the request through
   * uncounted, with a warning per outage and `fw_rate_limit_store_errors_total`
   * counted; `false` refuses it with 503 `store.unavailable`. Default true.
   */
  failOpen?: boolean;
  /** Called on every store failure (after the policy is applied), e.g. to log or count it your way. */
  onStoreError?: (error: unknown, req: IncomingMessage) => void;
}

/** A failure of the store itself, told apart from refusals and handler errors on the way back through next(). */
class StoreFailure extends Error {
  override name = 'StoreFailure';
}

/** `store` with its failures marked, calling `recovered` after each success. */
function watchedStore(store: RateLimitStore, recovered: () => void): RateLimitStore {
  const mark = (error: unknown): never => {
    throw new StoreFailure('rate-limit store failed', { cause: error });
  };
  const watched: RateLimitStore = {
    ...(store.init === undefined ? {} : { init: (o) => store.init?.(o) }),
    increment: async (key) => {
      try {
        const result = await store.increment(key);
        recovered();
        return result;
      } catch (error) {
        return mark(error);
      }
    },
    decrement: async (key) => {
      try {
        await store.decrement(key);
      } catch {
        // Un-counting is best effort (skipFailedRequests); the next window corrects it.
      }
    },
    resetKey: (key) => store.resetKey(key),
  };
  if (store.get !== undefined) watched.get = (key) => store.get?.(key);
  if (store.prefix !== undefined) watched.prefix = store.prefix;
  return watched;
}

interface PeerRequest extends IncomingMessage {
  ip?: string;
}

/** express-rate-limit, an optional peer of fw: installed only by services that limit rates. */
function loadExpressRateLimit(): typeof import('express-rate-limit') {
  return loadOptionalPeer<typeof import('express-rate-limit')>('express-rate-limit', 'rateLimit() from fw/middleware');
}

/** The client's IP address, IPv6 grouped by express-rate-limit's `ipKeyGenerator` (by /56). */
function clientAddress(req: IncomingMessage, group: (address: string) => string): string {
  const address = (req as PeerRequest).ip ?? req.socket.remoteAddress;
  return address === undefined ? 'unknown' : group(address);
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
  const { rateLimit: expressRateLimit, ipKeyGenerator } = loadExpressRateLimit();
  const windowMs = options.windowMs ?? 60_000;
  const max = options.max ?? 100;
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new TypeError(`rateLimit windowMs must be a positive number, got ${String(windowMs)}`);
  if (!Number.isInteger(max) || max < 0) throw new TypeError(`rateLimit max must be a non-negative integer, got ${String(max)}`);
  const seconds = Math.ceil(windowMs / 1000);
  const message = options.message ?? `Too many requests: at most ${max} per ${seconds} s; retry after the time in Retry-After`;
  const keyGenerator = options.keyGenerator ?? ((req: IncomingMessage) => clientAddress(req, ipKeyGenerator));
  const skip = options.skip;
  const failOpen = options.failOpen ?? true;
  const onStoreError = options.onStoreError;
  /** One warning per outage: set on the first failure, cleared by the next success. */
  let failing = false;
  const storeFailed = (error: unknown, req: IncomingMessage): void => {
    countStoreError(failOpen ? 'allowed' : 'refused');
    if (!failing) {
      failing = true;
      const reason = error instanceof Error ? error.message : String(error);
      process.emitWarning(`rateLimit store failed (${reason}); requests are ${failOpen ? 'let through uncounted' : 'refused with 503'} until it recovers`, 'FwRateLimitWarning');
    }
    onStoreError?.(error, req);
  };
  const store = options.store === undefined ? undefined : watchedStore(options.store, () => (failing = false));

  const settings: Partial<Options> = {
    windowMs,
    limit: max,
    standardHeaders: options.standardHeaders ?? 'draft-6',
    legacyHeaders: options.legacyHeaders ?? false,
    keyGenerator: (req) => keyGenerator(req),
    ...(skip === undefined ? {} : { skip: (req) => skip(req) }),
    ...(store === undefined ? {} : { store }),
    // Store failures come back through next() marked (watchedStore), where the policy applies with the request known.
    passOnStoreError: false,
    // Refuse through next() so the app's error handler writes `{ error }` like every other refusal.
    handler: (_req, _res, next) => next(new MiddlewareError(429, message, 'rate.limited')),
  };
  const limiter = expressRateLimit(settings) as unknown as (req: IncomingMessage, res: ServerResponse, next: NextFunction) => Promise<void>;
  return function fwRateLimit(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    if (store === undefined) {
      void limiter(req, res, next);
      return;
    }
    void limiter(req, res, (error?: unknown) => {
      if (!(error instanceof StoreFailure)) {
        next(error);
        return;
      }
      storeFailed(error.cause, req);
      if (failOpen) next();
      else next(storeUnavailable('The rate-limit store', error.cause));
    });
  };
}
