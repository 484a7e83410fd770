/**
 * What fw's Redis stores do about a Redis that is down or stuck, whatever
 * client options the application chose: the client's `'error'` events are
 * listened to (an unlistened one would crash the process), a command is
 * refused at once while the client is not connected (node-redis would queue
 * it until Redis returns), and a command sent gets `commandTimeoutMs` to
 * answer. node-redis reconnects by itself; the stores work again as soon as
 * it has. One warning per outage, one when Redis is back.
 */
import { MiddlewareError } from './middleware-error';

/** The event side of a node-redis client; optional so any command client can be passed. */
export interface RedisClientEvents {
  on?(event: 'error' | 'ready', listener: (...args: unknown[]) => void): unknown;
  /** node-redis: true while connected and ready for commands. */
  readonly isReady?: boolean;
}

/** A Redis command that failed fast: the client is not connected, or Redis did not answer in time. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** Default bound on one Redis command, in ms. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 1000;

/** Warnings go here; default `process.emitWarning`. */
export type RedisWarn = (message: string) => void;

const defaultWarn: RedisWarn = (message) => process.emitWarning(message, 'FwRedisWarning');

interface GuardState {
  down: boolean;
  warn: RedisWarn;
}

function markDown(state: GuardState, reason: string): void {
  if (state.down) return;
  state.down = true;
  state.warn(`Redis unavailable (${reason}); fw's Redis stores fail fast until it reconnects`);
}

/** One listener set per client, however many stores share it. */
const guarded = new WeakMap<object, GuardState>();

function stateOf(client: RedisClientEvents, warn: RedisWarn): GuardState {
  let state = guarded.get(client);
  if (state !== undefined) return state;
  const fresh: GuardState = { down: false, warn };
  state = fresh;
  guarded.set(client, fresh);
  client.on?.('error', (error: unknown) => markDown(fresh, error instanceof Error ? error.message : String(error)));
  client.on?.('ready', () => {
    if (!fresh.down) return;
    fresh.down = false;
    fresh.warn('Redis reconnected; fw\'s Redis stores use it again');
  });
  return state;
}

/** Runs Redis commands for one store under fw's outage policy. */
export interface RedisGuard {
  run<T>(command: () => Promise<T>): Promise<T>;
}

/**
 * Guards `client` (listeners attached once per client).
 *
 * @example
 * const guard = guardRedis(client, { commandTimeoutMs: 500 });
 * const value = await guard.run(() => client.get('key'));
 */
export function guardRedis(client: RedisClientEvents, options: { commandTimeoutMs?: number; warn?: RedisWarn } = {}): RedisGuard {
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError(`commandTimeoutMs must be a positive number, got ${String(timeoutMs)}`);
  const state = stateOf(client, options.warn ?? defaultWarn);
  return {
    run<T>(command: () => Promise<T>): Promise<T> {
      if (client.isReady === false) {
        markDown(state, 'not connected');
        return Promise.reject(new RedisUnavailableError('Redis is not connected'));
      }
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new RedisUnavailableError(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
        command().then(
          (value) => {
            clearTimeout(timer);
            resolve(value);
          },
          (error: unknown) => {
            clearTimeout(timer);
            // Redis's own replies (NOSCRIPT…) pass unchanged: the stores act on them.
            reject(error);
          },
        );
      });
    },
  };
}

/** The 503 a store's caller answers with while Redis is unavailable. */
export function storeUnavailable(what: string, error: unknown): MiddlewareError {
  const reason = error instanceof Error ? error.message : String(error);
  return new MiddlewareError(503, `${what} is unavailable: ${reason}; retry shortly`, 'store.unavailable', { cause: error });
}
