/**
 * The HTTP/2 connections of the lean forwarding client (h2-unary-channel.ts)
 * to one instance. A server caps the streams open at once on each
 * connection (`SETTINGS_MAX_CONCURRENT_STREAMS`: 100 on fw's own servers,
 * as on most); streams beyond it wait in the client's queue until one of
 * the open ones ends. One connection per instance therefore capped every
 * instance at 100 forwarded calls in flight, however many callers the
 * gateway had: the rest queued behind them (slower calls, deadlines spent
 * waiting), and long-lived streams could take every slot and starve unary
 * calls. Like other HTTP/2 proxies (Envoy's connection pools), the pool
 * opens another connection when every open one is at its peer's limit.
 */
import * as http2 from 'node:http2';

/** What a server is assumed to allow before any of its SETTINGS arrived (Node's own assumption, `peerMaxConcurrentStreams`). */
const ASSUMED_STREAM_LIMIT = 100;

/** HTTP/2's largest SETTINGS value. */
const UNLIMITED = 2 ** 32 - 1;

/** Connections per instance; past this, streams queue on the least busy one. */
export const MAX_CONNECTIONS = 16;

/** How long calls fail fast after a failed connection attempt (grpc-js's initial reconnect backoff). */
const RECONNECT_BACKOFF_MS = 1000;

/** One connection and the calls open on it. Whoever `acquire`d it calls `release()` once the stream closed. */
export class H2Connection {
  readonly session: http2.ClientHttp2Session;
  /** Streams opened on it and not yet closed. */
  active = 0;
  /** The peer's concurrent stream limit (its SETTINGS), or the pool's best guess until they come. */
  limit: number;
  /** Closed or going away: takes no new streams. */
  gone = false;

  constructor(session: http2.ClientHttp2Session, limit: number) {
    this.session = session;
    this.limit = limit;
  }

  release(): void {
    this.active--;
  }
}

/** The connections to one instance (`authority`, `http://host:port`), opened as calls need them. */
export class H2SessionPool {
  readonly #authority: string;
  readonly #connections: H2Connection[] = [];
  /** After a connection attempt failed, calls fail fast until then (epoch ms), as grpc-js's reconnect backoff does. */
  #retryAt = 0;
  /** The instance's stream limit as its last SETTINGS gave it: a new connection starts from it, not from 100. */
  #learnedLimit: number | undefined = undefined;

  constructor(authority: string) {
    this.#authority = authority;
  }

  /** True while calls should fail fast: the last connection attempt failed moments ago and none is open. */
  backingOff(): boolean {
    return this.#retryAt !== 0 && this.#connections.length === 0 && this.#retryAt > Date.now();
  }

  /**
   * The connection for one more stream, counted on it: the first with a free
   * slot, else a new one, else (at MAX_CONNECTIONS) the least busy.
   */
  acquire(): H2Connection {
    const all = this.#connections;
    let least: H2Connection | undefined;
    for (let i = 0; i < all.length; i++) {
      const c = all[i] as H2Connection;
      // Closed, not yet forgotten ('close' comes a tick later): never picked again.
      if (c.session.closed || c.session.destroyed) {
        c.gone = true;
        all.splice(i--, 1);
        continue;
      }
      if (c.active < c.limit) {
        c.active++;
        return c;
      }
      if (least === undefined || c.active < least.active) least = c;
    }
    const c = least !== undefined && all.length >= MAX_CONNECTIONS ? least : this.#open();
    c.active++;
    return c;
  }

  #open(): H2Connection {
    const learned = this.#learnedLimit;
    // With the limit known, the client queues streams past it until the new connection's own SETTINGS come, rather than have them refused.
    const session = http2.connect(this.#authority, learned === undefined ? {} : { peerMaxConcurrentStreams: learned });
    const c = new H2Connection(session, learned ?? ASSUMED_STREAM_LIMIT);
    // Failures surface on each stream; this keeps an unhandled 'error' from throwing.
    session.on('error', () => undefined);
    const forget = (): void => {
      c.gone = true;
      const at = this.#connections.indexOf(c);
      if (at !== -1) this.#connections.splice(at, 1);
    };
    let connected = false;
    session.once('close', () => {
      forget();
      if (!connected) this.#retryAt = Date.now() + RECONNECT_BACKOFF_MS;
    });
    session.once('goaway', forget);
    session.on('remoteSettings', (settings: http2.Settings) => {
      // Absent means unlimited: HTTP/2's largest setting value (what peerMaxConcurrentStreams accepts).
      c.limit = Math.min(settings.maxConcurrentStreams ?? UNLIMITED, UNLIMITED);
      this.#learnedLimit = c.limit;
    });
    session.once('connect', (_session: http2.ClientHttp2Session, socket: { setNoDelay?: (on: boolean) => unknown }) => {
      connected = true;
      this.#retryAt = 0;
      // Small request/response frames: do not let Nagle hold them back.
      socket.setNoDelay?.(true);
    });
    // Like grpc-js channels, an idle connection does not keep the process alive.
    session.unref();
    this.#connections.push(c);
    return c;
  }

  /** How many connections are open (for tests and observation). */
  get size(): number {
    return this.#connections.length;
  }

  /** Closes every connection: running streams finish, no new ones start. */
  close(): void {
    for (const c of this.#connections.splice(0)) {
      c.gone = true;
      c.session.close();
    }
  }
}
