/**
 * A session store whose failures reach the client as 503 `store.unavailable`
 * with a clear message (express-session would pass the store's raw error on,
 * which the app answers with 500). Reads and writes only: everything else is
 * the wrapped store's own.
 */
import expressSession from 'express-session';
import { storeUnavailable } from './redis-guard';

type Callback<T = unknown> = (error?: unknown, value?: T) => void;

function mapped<T>(callback: Callback<T> | undefined): Callback<T> {
  return (error, value) => callback?.(error === undefined || error === null ? error : storeUnavailable('The session store', error), value);
}

/** `inner` with its errors turned into 503 refusals. */
export class GuardedSessionStore extends expressSession.Store {
  readonly #inner: expressSession.Store;

  constructor(inner: expressSession.Store) {
    super();
    this.#inner = inner;
  }

  override get(sid: string, callback: (error: unknown, session?: expressSession.SessionData | null) => void): void {
    this.#inner.get(sid, mapped(callback as Callback<expressSession.SessionData | null>) as never);
  }

  override set(sid: string, session: expressSession.SessionData, callback?: (error?: unknown) => void): void {
    this.#inner.set(sid, session, mapped(callback));
  }

  override destroy(sid: string, callback?: (error?: unknown) => void): void {
    this.#inner.destroy(sid, mapped(callback));
  }

  override touch(sid: string, session: expressSession.SessionData, callback?: () => void): void {
    if (this.#inner.touch === undefined) callback?.();
    else this.#inner.touch(sid, session, mapped(callback as Callback) as () => void);
  }
}
