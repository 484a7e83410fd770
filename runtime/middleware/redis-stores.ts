/**
 * Redis-backed stores so several instances share rate limits and sessions:
 * rate-limit-redis for {@link rateLimit}, connect-redis for {@link session}.
 * Both take a connected node-redis client (`createClient` from `redis`).
 */
import { RedisStore as SessionRedisStore } from 'connect-redis';
import { RedisStore as RateLimitRedisStore } from 'rate-limit-redis';
import type { RateLimitStore } from './rate-limit';
import type { SessionStore } from './session';

/** The part of a node-redis client the rate-limit store uses. */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Options of {@link redisRateLimitStore}. */
export interface RedisRateLimitStoreOptions {
  /** A connected node-redis client. */
  client: RedisCommandClient;
  /** Key prefix; instances sharing a limit must use the same one. Default `'fw:rl:'`. */
  prefix?: string;
}

/**
 * A rate-limit store in Redis: every instance using the same Redis and
 * prefix counts against one shared limit.
 *
 * @example
 * import { createClient } from 'redis';
 * import { rateLimit, redisRateLimitStore } from 'fw/middleware';
 * const client = createClient({ url: process.env.REDIS_URL });
 * await client.connect();
 * app.use(rateLimit({ windowMs: 60_000, max: 100, store: redisRateLimitStore({ client }) }));
 */
export function redisRateLimitStore(options: RedisRateLimitStoreOptions): RateLimitStore {
  const client = options.client;
  return new RateLimitRedisStore({
    prefix: options.prefix ?? 'fw:rl:',
    sendCommand: (...args: string[]) => client.sendCommand(args) as Promise<number | string | boolean | (number | string | boolean)[]>,
  });
}

/** The commands connect-redis sends; a node-redis client (`createClient()`) has them. */
export interface RedisSessionClient {
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options: { expiration: { type: 'EX'; value: number } }): Promise<unknown>;
  expire(key: string, seconds: number): Promise<unknown>;
  del(keys: string[]): Promise<unknown>;
  mGet(keys: string[]): Promise<unknown>;
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<unknown>;
}

/** Options of {@link redisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** A connected node-redis client. */
  client: RedisSessionClient;
  /** Key prefix. Default `'fw:sess:'`. */
  prefix?: string;
  /** Seconds a session lives when its cookie has no maxAge. Default 86 400. */
  ttl?: number;
}

/**
 * A session store in Redis: a session created on one instance is read by all.
 *
 * @example
 * import { session, redisSessionStore } from 'fw/middleware';
 * app.use(session({ secret: process.env.SESSION_SECRET!, store: redisSessionStore({ client }) }));
 */
export function redisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  return new SessionRedisStore({ client: options.client, prefix: options.prefix ?? 'fw:sess:', ttl: options.ttl ?? 86_400 });
}
