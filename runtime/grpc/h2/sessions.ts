/**
 * Connection-level policy of fw's node:http2 gRPC server, per HTTP/2
 * session: idle connections closed (GOAWAY) after `maxConnectionIdle` with no
 * open stream, connections retired after `maxConnectionAge` (+ grace),
 * keepalive pings with a timeout, clients pinging more often than
 * allowed sent away (ENHANCE_YOUR_CALM) after too many strikes, and clients
 * resetting streams faster than `maxResetsPerSecond` sent away the same way.
 */
import http2, { type ServerHttp2Session } from 'node:http2';

/** The connection options (milliseconds; undefined = off). */
export interface SessionPolicy {
  readonly maxConnectionIdle: number;
  readonly maxConnectionAge: number | undefined;
  readonly maxConnectionAgeGrace: number | undefined;
  readonly keepaliveTimeMs: number | undefined;
  readonly keepaliveTimeoutMs: number;
  readonly minPingIntervalMs: number | undefined;
  readonly maxPingStrikes: number;
  /** Streams a connection may reset (RST_STREAM) in one second before it is sent away; 0 = no cap. */
  readonly maxResetsPerSecond: number;
}

/** One session's timers and counters. */
class SessionState {
  readonly idleMs: number;
  open = 0;
  /** When the last stream closed (ms); the one idle timer re-checks it rather than being re-armed per stream. */
  idleSince = Date.now();
  idleTimer: NodeJS.Timeout | undefined = undefined;
  timers: NodeJS.Timeout[] = [];
  lastPing = 0;
  strikes = 0;
  readonly maxResets: number;
  /** Resets counted in the current one-second window, and when it began. */
  resets = 0;
  resetWindowStart = 0;
  constructor(idleMs: number, maxResets: number) {
    this.idleMs = idleMs;
    this.maxResets = maxResets;
  }
}

const STATE = Symbol('fw.grpc.session');
type TrackedSession = ServerHttp2Session & { [STATE]?: SessionState };

function checkIdle(session: TrackedSession, state: SessionState): void {
  state.idleTimer = undefined;
  if (session.closed || session.destroyed) return;
  if (state.open > 0) {
    armIdle(session, state, state.idleMs);
    return;
  }
  const idleFor = Date.now() - state.idleSince;
  // Decided after the poll phase: a request already waiting in the socket (the loop was busy when the
  // timer came due) opens its stream first, instead of being refused by the GOAWAY.
  if (idleFor >= state.idleMs) setImmediate(closeIfStillIdle, session, state);
  else armIdle(session, state, state.idleMs - idleFor);
}

function closeIfStillIdle(session: TrackedSession, state: SessionState): void {
  if (session.closed || session.destroyed) return;
  if (state.open > 0) armIdle(session, state, state.idleMs);
  else session.close();
}

function armIdle(session: TrackedSession, state: SessionState, ms: number): void {
  state.idleTimer = setTimeout(checkIdle, ms, session, state);
  state.idleTimer.unref();
}

/** Tracks the live sessions of one server and applies `policy` to each. */
export class SessionTracker {
  readonly #policy: SessionPolicy;
  readonly #sessions = new Set<TrackedSession>();

  constructor(policy: SessionPolicy) {
    this.#policy = policy;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** A new connection: starts its idle clock and the age and keepalive timers. */
  add(session: TrackedSession): void {
    const policy = this.#policy;
    const state = new SessionState(policy.maxConnectionIdle, policy.maxResetsPerSecond);
    session[STATE] = state;
    this.#sessions.add(session);
    // A protocol error on one connection (an HTTP/1.1 client, a bad frame) ends that connection only.
    session.on('error', ignore);
    armIdle(session, state, policy.maxConnectionIdle);
    if (policy.maxConnectionAge !== undefined) {
      // Jitter (±10%) so connections opened together are not all retired at once.
      const age = Math.round(policy.maxConnectionAge * (0.9 + Math.random() * 0.2));
      state.timers.push(setTimeout(() => this.#retire(session), age).unref());
    }
    if (policy.keepaliveTimeMs !== undefined) state.timers.push(setInterval(() => this.#ping(session), policy.keepaliveTimeMs).unref());
    if (policy.minPingIntervalMs !== undefined) session.on('ping', () => this.#countPing(session, state));
    session.once('close', () => {
      this.#sessions.delete(session);
      if (state.idleTimer !== undefined) clearTimeout(state.idleTimer);
      for (const timer of state.timers) clearTimeout(timer);
    });
  }

  /** GOAWAY on every connection; running streams finish. Resolves when all have closed. */
  closeAll(): Promise<void> {
    const closing = [...this.#sessions].map((session) => new Promise<void>((resolve) => {
      if (session.destroyed) resolve();
      else {
        session.once('close', () => resolve());
        session.close();
      }
    }));
    return Promise.all(closing).then(() => undefined);
  }

  /**
   * Ends every connection (their streams close, calls are cancelled): now,
   * or with `graceMs` once its streams have closed (GOAWAY; statuses just
   * written still leave) and at the latest after `graceMs`.
   */
  destroyAll(graceMs = 0): void {
    for (const session of this.#sessions) {
      if (graceMs === 0) session.destroy();
      else if (!session.destroyed) {
        if (!session.closed) session.close();
        setTimeout(() => session.destroy(), graceMs).unref();
      }
    }
  }

  #retire(session: TrackedSession): void {
    if (session.closed || session.destroyed) return;
    session.close();
    const grace = this.#policy.maxConnectionAgeGrace;
    if (grace !== undefined) setTimeout(() => session.destroy(), grace).unref();
  }

  #ping(session: TrackedSession): void {
    if (session.closed || session.destroyed) return;
    const timeout = setTimeout(() => session.destroy(), this.#policy.keepaliveTimeoutMs).unref();
    const sent = session.ping((error) => {
      clearTimeout(timeout);
      if (error !== null) session.destroy();
    });
    if (!sent) clearTimeout(timeout);
  }

  #countPing(session: TrackedSession, state: SessionState): void {
    const now = Date.now();
    const tooSoon = state.open === 0 && now - state.lastPing < (this.#policy.minPingIntervalMs as number);
    state.lastPing = now;
    if (!tooSoon) return;
    state.strikes++;
    if (state.strikes > this.#policy.maxPingStrikes) {
      session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      session.destroy();
    }
  }
}

/** A stream opened on `session`: not idle any more. */
export function streamOpened(session: TrackedSession): void {
  const state = session[STATE];
  if (state === undefined) return;
  state.open++;
  state.strikes = 0;
}

/**
 * A stream of `session` closed (`rstCode` as Node reports it, 0 when it ended
 * normally): the last one starts the idle clock, and a connection resetting
 * streams faster than its cap is sent away. nghttp2's own rapid-reset guard
 * allows bursts of 1000; at that rate a few connections still kept the event
 * loop busy enough to delay every other client by hundreds of milliseconds.
 */
export function streamClosed(session: TrackedSession | undefined, rstCode = 0): void {
  const state = session?.[STATE];
  if (session === undefined || state === undefined) return;
  if (--state.open === 0) state.idleSince = Date.now();
  if (rstCode === 0 || state.maxResets === 0) return;
  const now = Date.now();
  if (now - state.resetWindowStart >= 1000) {
    state.resetWindowStart = now;
    state.resets = 0;
  }
  if (++state.resets > state.maxResets && !session.destroyed) {
    session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    session.destroy();
  }
}

function ignore(): void {
  // The session closes itself; nothing to report to anyone.
}
