/**
 * A session store whose failures reach the client as 503 `store.unavailable`
 * with a clear message (express-session would pass the store's raw error on,
 * which the app answers with 500). Reads and writes only: everything else is
 * the wrapped store's own.
 */
import type expressSession from 'express-session';
import { storeUnavailable } from './redis-guard';

type Callback<T = unknown> = (error?: unknown, value?: T) => void;

function mapped<T>(callback: Callback<T> | undefined): Callback<T> {
  return (error, value) => callback?.(error === undefined || error === null ? error : storeUnavailable('The session store', error), value);
}

/** `inner` with its errors turned into 503 refusals; `StoreBase` is express-session's `Store`, loaded by the caller. */
export function guardSessionStore(StoreBase: typeof expressSession.Store, inner: expressSession.Store): expressSession.Store {
  return new (guardedStoreClass(StoreBase))(inner);
}

let guardedClass: ReturnType<typeof defineGuardedStore> | undefined;

function guardedStoreClass(StoreBase: typeof expressSession.Store): ReturnType<typeof defineGuardedStore> {
  guardedClass ??= defineGuardedStore(StoreBase);
  return guardedClass;
}

// The class is defined on first use: its base class comes from the optional peer.
function defineGuardedStore(StoreBase: typeof expressSession.Store) {
  return class GuardedSessionStore extends StoreBase {
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
  };
}
