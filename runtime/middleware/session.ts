/**
 * `session(options)`: express-session with safe cookie defaults (HttpOnly,
 * SameSite=Lax, no session stored until something is put in it). A cookie
 * whose signature does not verify is ignored: the request has no session.
 * While the store fails, requests that need it are answered 503.
 */
import type expressSession from 'express-session';
import { loadOptionalPeer } from '../core/optional-peer';
import { guardSessionStore } from './session-store-guard';
import type { ConnectHandler } from './types';

/** Where sessions live (express-session's `Store`); default in memory. */
export type SessionStore = expressSession.Store;

/** Session cookie settings (spec 4.5). */
export interface SessionCookieOptions {
  /** Lifetime in ms; without it the cookie lasts for the browser session. */
  maxAge?: number;
  /** Hide the cookie from page scripts. Default true. */
  httpOnly?: boolean;
  /** Send only over HTTPS; `'auto'` follows the connection. Default false. */
  secure?: boolean | 'auto';
  /** Default `'lax'`. */
  sameSite?: boolean | 'lax' | 'strict' | 'none';
  /** Default `'/'`. */
  path?: string;
  domain?: string;
}

/** Options of {@link session} (spec 4.5). */
export interface SessionOptions {
  /** Signs the session cookie; a list allows rotation (first signs, all verify). */
  secret: string | string[];
  cookie?: SessionCookieOptions;
  /** Save unchanged sessions on every request. Default false. */
  resave?: boolean;
  /** Store sessions nothing was put in. Default false. */
  saveUninitialized?: boolean;
  /** Default in memory; use {@link redisSessionStore} to share across instances. */
  store?: SessionStore;
  /** Cookie name. Default `'connect.sid'`. */
  name?: string;
  /** Renew the cookie on every response. Default false. */
  rolling?: boolean;
}

/**
 * Cookie-identified sessions on `req.session`.
 *
 * @example
 * import { session } from 'fw/middleware';
 * app.use(session({ secret: process.env.SESSION_SECRET!, cookie: { maxAge: 3_600_000, httpOnly: true, secure: false } }));
 * app.post('/login', (req, res) => { req.session.userId = 'u1'; res.json({ ok: true }); });
 */
export function session(options: SessionOptions): ConnectHandler {
  const secret = options.secret;
  if (typeof secret === 'string' ? secret.length === 0 : !Array.isArray(secret) || secret.length === 0) {
    throw new TypeError('session() needs a non-empty secret');
  }
  const cookie = options.cookie ?? {};
  // express-session is an optional peer of fw: installed only by services that keep sessions.
  const expressSessionModule = loadOptionalPeer<typeof expressSession>('express-session', 'session() from fw/middleware');
  return expressSessionModule({
    secret: Array.isArray(secret) ? [...secret] : secret,
    resave: options.resave ?? false,
    saveUninitialized: options.saveUninitialized ?? false,
    rolling: options.rolling ?? false,
    ...(options.name === undefined ? {} : { name: options.name }),
    // A failing store (Redis down) answers 503 `store.unavailable` rather than a raw 500.
    ...(options.store === undefined ? {} : { store: guardSessionStore(expressSessionModule.Store, options.store) }),
    cookie: {
      httpOnly: cookie.httpOnly ?? true,
      secure: cookie.secure ?? false,
      sameSite: cookie.sameSite ?? 'lax',
      path: cookie.path ?? '/',
      ...(cookie.maxAge === undefined ? {} : { maxAge: cookie.maxAge }),
      ...(cookie.domain === undefined ? {} : { domain: cookie.domain }),
    },
  }) as unknown as ConnectHandler;
}
