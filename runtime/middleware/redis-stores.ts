/**
 * Redis-backed stores so several instances share rate limits and sessions:
 * rate-limit-redis for {@link rateLimit}, connect-redis for {@link session}.
 * Both take a connected node-redis client (`createClient` from `redis`) and
 * own its outage handling (redis-guard.ts): a Redis outage never crashes the
 * process, every command fails within `commandTimeoutMs` while Redis is away
 * instead of queueing, and the stores work again once node-redis reconnects.
 */
import type { IncrementResponse, Options as RateLimitSettings } from 'express-rate-limit';
import type { RedisStore as RateLimitRedisStore } from 'rate-limit-redis';
import { loadOptionalPeer } from '../core/optional-peer';
import type { RateLimitStore } from './rate-limit';
import { guardRedis, type RedisClientEvents, type RedisGuard, type RedisWarn } from './redis-guard';
import type { SessionStore } from './session';

/** The part of a node-redis client the rate-limit store uses. */
export interface RedisCommandClient extends RedisClientEvents {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Outage settings shared by both Redis stores. */
export interface RedisOutageOptions {
  /** Bound on one Redis command, in ms; a command not answered by then fails. Default 1000. */
  commandTimeoutMs?: number;
  /** Where the "Redis unavailable" / "Redis reconnected" warnings go. Default `process.emitWarning`. */
  warn?: RedisWarn;
}

/** Options of {@link redisRateLimitStore}. */
export interface RedisRateLimitStoreOptions extends RedisOutageOptions {
  /** A connected node-redis client. */
  client: RedisCommandClient;
  /** Key prefix; instances sharing a limit must use the same one. Default `'fw:rl:'`. */
  prefix?: string;
}

type RedisReply = number | string | boolean | (number | string | boolean)[];

/**
 * rate-limit-redis loads its Lua scripts once, in `init`; when Redis is down
 * then, it would keep the failed load for good. This store loads them again
 * on the next hit instead.
 */
class OutageAwareRateLimitStore implements RateLimitStore {
  readonly #inner: RateLimitRedisStore;
  readonly prefix: string;
  #settings: RateLimitSettings | undefined = undefined;
  #loaded: Promise<void> | undefined = undefined;

  constructor(inner: RateLimitRedisStore) {
    this.#inner = inner;
    this.prefix = inner.prefix;
  }

  init(settings: RateLimitSettings): void {
    this.#settings = settings;
    this.#load().catch(() => undefined);
  }

  #load(): Promise<void> {
    const loading = this.#inner.init(this.#settings as RateLimitSettings);
    this.#loaded = loading;
    loading.catch(() => {
      if (this.#loaded === loading) this.#loaded = undefined;
    });
    return loading;
  }

  async increment(key: string): Promise<IncrementResponse> {
    await (this.#loaded ?? this.#load());
    return this.#inner.increment(key);
  }

  async get(key: string): Promise<IncrementResponse | undefined> {
    await (this.#loaded ?? this.#load());
    return this.#inner.get(key);
  }

  decrement(key: string): Promise<void> {
    return this.#inner.decrement(key);
  }

  resetKey(key: string): Promise<void> {
    return this.#inner.resetKey(key);
  }
}

/**
 * A rate-limit store in Redis: every instance using the same Redis and
 * prefix counts against one shared limit. While Redis is unavailable,
 * {@link rateLimit} lets requests through (or refuses them with 503 when
 * `failOpen: false`).
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
  const guard = guardRedis(client, options);
  // rate-limit-redis is an optional peer of fw: installed only by services that share limits in Redis.
  const { RedisStore } = loadOptionalPeer<typeof import('rate-limit-redis')>('rate-limit-redis', 'redisRateLimitStore() from fw/middleware');
  return new OutageAwareRateLimitStore(
    new RedisStore({
      prefix: options.prefix ?? 'fw:rl:',
      sendCommand: (...args: string[]) => guard.run(() => client.sendCommand(args)) as Promise<RedisReply>,
    }),
  );
}

/** The commands connect-redis sends; a node-redis client (`createClient()`) has them. */
export interface RedisSessionClient extends RedisClientEvents {
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options: { expiration: { type: 'EX'; value: number } }): Promise<unknown>;
  expire(key: string, seconds: number): Promise<unknown>;
  del(keys: string[]): Promise<unknown>;
  mGet(keys: string[]): Promise<unknown>;
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<unknown>;
}

/** Options of {@link redisSessionStore}. */
export interface RedisSessionStoreOptions extends RedisOutageOptions {
  /** A connected node-redis client. */
  client: RedisSessionClient;
  /** Key prefix. Default `'fw:sess:'`. */
  prefix?: string;
  /** Seconds a session lives when its cookie has no maxAge. Default 86 400. */
  ttl?: number;
}

/** `client`'s commands, each run under `guard`. */
function guardedSessionClient(client: RedisSessionClient, guard: RedisGuard): RedisSessionClient {
  return {
    get: (key) => guard.run(() => client.get(key)),
    set: (key, value, options) => guard.run(() => client.set(key, value, options)),
    expire: (key, seconds) => guard.run(() => client.expire(key, seconds)),
    del: (keys) => guard.run(() => client.del(keys)),
    mGet: (keys) => guard.run(() => client.mGet(keys)),
    // Listing every session (store.all/length) is an admin path: left to the client's own handling.
    scanIterator: (options) => client.scanIterator(options),
  };
}

/**
 * A session store in Redis: a session created on one instance is read by all.
 * While Redis is unavailable, {@link session} answers 503.
 *
 * @example
 * import { session, redisSessionStore } from 'fw/middleware';
 * app.use(session({ secret: process.env.SESSION_SECRET!, store: redisSessionStore({ client }) }));
 */
export function redisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  // connect-redis is an optional peer of fw: installed only by services that keep sessions in Redis.
  const { RedisStore } = loadOptionalPeer<typeof import('connect-redis')>('connect-redis', 'redisSessionStore() from fw/middleware');
  const guard = guardRedis(options.client, options);
  return new RedisStore({ client: guardedSessionClient(options.client, guard), prefix: options.prefix ?? 'fw:sess:', ttl: options.ttl ?? 86_400 });
}
