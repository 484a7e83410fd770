/**
 * The lean gRPC client the forwarder uses instead of a grpc-js Client when
 * the channel is plain (no credentials, no channel options): one h2c HTTP/2
 * session per instance, unary calls here, server, client and bidi streams
 * in h2-stream-call.ts, the wire in h2-grpc-wire.ts. A forwarded call is
 * already decoded (or passed through as bytes) and routed by the gateway;
 * grpc-js's client stack (resolver, retry, load-balancing and subchannel
 * call layers, interceptors, per-call Metadata objects) roughly doubled the
 * gateway's CPU per forwarded call.
 */
import * as http2 from 'node:http2';
import { status as GrpcCode } from '@grpc/grpc-js';
import { callError, codeOf, codeOfHttpStatus, endedWithoutStatus, MAX_RESPONSE_BYTES, onlyMessage, frame, statusError, type H2CallError } from './h2-grpc-wire';
import { H2StreamCall } from './h2-stream-call';

export { callError, type H2CallError } from './h2-grpc-wire';

const { NGHTTP2_CANCEL } = http2.constants;

/**
 * How a call ended: `error` null on OK with the response message bytes;
 * `answered` tells whether the instance sent response headers (a call
 * refused before that is safe to retry elsewhere); `reply` holds the
 * instance's response headers and trailers, for passing them back.
 */
export type H2UnaryCallback = (error: H2CallError | null, message: Buffer | undefined, answered: boolean, reply: H2Reply) => void;

/** The instance's response headers (undefined for a trailers-only answer) and trailers. */
export interface H2Reply {
  headers: http2.IncomingHttpHeaders | undefined;
  trailers: http2.IncomingHttpHeaders | undefined;
}

/** A started call; `cancel` ends it CANCELLED. */
export interface H2UnaryCall {
  cancel(): void;
}

/** Extra request headers of a call: lower-case names, text values (`-bin` ones base64). */
export type H2RequestMetadata = Record<string, string | string[]>;

/** How long calls fail fast after a failed connection attempt (grpc-js's initial reconnect backoff). */
const RECONNECT_BACKOFF_MS = 1000;

/** One HTTP/2 session to one instance, reopened after it closes; unary and streaming calls. */
export class H2UnaryChannel {
  readonly #authority: string;
  #session: http2.ClientHttp2Session | undefined = undefined;
  #closed = false;
  /** The liveness probe's own connection (see ping()). */
  #probe: http2.ClientHttp2Session | undefined = undefined;
  /** After a connection attempt failed, calls fail fast until then (epoch ms), as grpc-js's reconnect backoff does. */
  #retryAt = 0;

  /** `target` is `host:port` (IPv6 bracketed), as ServiceInstance.target gives it. */
  constructor(target: string) {
    this.#authority = `http://${target}`;
  }

  #open(): http2.ClientHttp2Session {
    const current = this.#session;
    if (current !== undefined && !current.closed && !current.destroyed) return current;
    const session = http2.connect(this.#authority);
    // Failures surface on each stream; this keeps an unhandled 'error' from throwing.
    session.on('error', () => undefined);
    const forget = (): void => {
      if (this.#session === session) this.#session = undefined;
    };
    let connected = false;
    session.once('close', () => {
      forget();
      if (!connected) this.#retryAt = Date.now() + RECONNECT_BACKOFF_MS;
    });
    session.once('goaway', forget);
    session.once('connect', (_session: http2.ClientHttp2Session, socket: { setNoDelay?: (on: boolean) => unknown }) => {
      connected = true;
      // Small request/response frames: do not let Nagle hold them back.
      socket.setNoDelay?.(true);
    });
    // Like grpc-js channels, an idle connection does not keep the process alive.
    session.unref();
    this.#session = session;
    return session;
  }

  /**
   * Opens one call's stream: request headers with `metadata` and the
   * deadline as `grpc-timeout` (`deadline` epoch ms, or undefined for none).
   * Returns the error the call fails with instead when it cannot start.
   */
  #request(path: string, metadata: H2RequestMetadata, deadline: number | undefined): { stream: http2.ClientHttp2Stream; session: http2.ClientHttp2Session } | H2CallError {
    if (this.#closed) return callError(GrpcCode.UNAVAILABLE, 'Channel has been shut down');
    // The last connection attempt failed moments ago: fail now (the forwarder tries another instance).
    if (this.#retryAt > Date.now()) return callError(GrpcCode.UNAVAILABLE, `No connection to ${this.#authority} (the last attempt failed)`);
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers',
    };
    for (const key of Object.keys(metadata)) headers[key] = metadata[key];
    if (deadline !== undefined) headers['grpc-timeout'] = `${Math.max(1, Math.ceil(deadline - Date.now()))}m`;
    try {
      const session = this.#open();
      return { stream: session.request(headers), session };
    } catch (error) {
      // The session was just checked to be open: this is a request we could not build (bad metadata).
      return callError(GrpcCode.INTERNAL, (error as Error).message);
    }
  }

  /**
   * Sends one unary call. `metadata` are extra request headers (lower-case
   * names, text values); `deadline` is epoch ms or undefined for none.
   */
  unary(path: string, message: Buffer, metadata: H2RequestMetadata, deadline: number | undefined, callback: H2UnaryCallback): H2UnaryCall {
    let finished = false;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const reply: H2Reply = { headers: undefined, trailers: undefined };
    const finish = (error: H2CallError | null, body: Buffer | undefined): void => {
      if (finished) return;
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      callback(error, body, answered, reply);
    };
    const opened = this.#request(path, metadata, deadline);
    if (!('stream' in opened)) {
      finish(opened, undefined);
      return { cancel: () => undefined };
    }
    const { stream: s, session } = opened;
    if (deadline !== undefined) {
      timer = setTimeout(() => {
        finish(callError(GrpcCode.DEADLINE_EXCEEDED, 'Deadline exceeded'), undefined);
        s.close(NGHTTP2_CANCEL);
      }, Math.max(1, Math.ceil(deadline - Date.now())));
    }
    let chunks: Buffer[] | undefined;
    let size = 0;
    s.on('response', (h) => {
      const httpStatus = h[':status'];
      // A trailers-only answer carries no response headers of its own: like grpc-js, not "answered".
      if (h['grpc-status'] !== undefined) {
        reply.trailers = h;
        return;
      }
      answered = true;
      reply.headers = h;
      if (httpStatus !== 200) {
        finish(callError(codeOfHttpStatus(Number(httpStatus)), `Received HTTP status code ${String(httpStatus)}`), undefined);
        s.close(NGHTTP2_CANCEL);
      }
    });
    s.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES + 5) {
        finish(callError(GrpcCode.RESOURCE_EXHAUSTED, `Received message larger than max (${size} vs ${MAX_RESPONSE_BYTES})`), undefined);
        s.close(NGHTTP2_CANCEL);
        return;
      }
      (chunks ??= []).push(chunk);
    });
    s.on('trailers', (t) => {
      reply.trailers = t;
    });
    let streamError: Error | undefined;
    s.on('error', (error: Error) => {
      // The 'close' that follows decides the status, from the reset code and the connection's state.
      streamError = error;
    });
    s.on('close', () => {
      if (finished) return;
      const body = (): Buffer => (chunks === undefined ? Buffer.alloc(0) : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
      const trailers = reply.trailers;
      if (trailers === undefined) {
        const connectionGone = session.closed || session.destroyed;
        // The instance's handler finished and its whole reply arrived; only the status was lost with the
        // connection (an instance killed between its writes). Servers send a unary reply only on success,
        // so this is that success: failing would lose it, retrying would run the call twice.
        const whole = answered && connectionGone ? onlyMessage(body()) : undefined;
        if (whole !== undefined) finish(null, whole);
        else finish(endedWithoutStatus(s.rstCode ?? 0, connectionGone, answered, streamError), undefined);
        return;
      }
      const code = codeOf(trailers);
      if (code !== GrpcCode.OK) {
        finish(statusError(code, trailers), undefined);
        return;
      }
      const all = body();
      const one = onlyMessage(all);
      if (one === undefined) {
        finish(callError(GrpcCode.INTERNAL, all.length >= 5 && all[0] === 1 ? 'Compressed response not supported' : 'Expected exactly one response message'), undefined);
        return;
      }
      finish(null, one);
    });
    s.end(frame(message));
    return {
      cancel: () => {
        if (finished) return;
        finish(callError(GrpcCode.CANCELLED, 'Cancelled on client'), undefined);
        s.close(NGHTTP2_CANCEL);
      },
    };
  }

  /**
   * Starts a streaming call (server, client or bidirectional): request
   * messages go out through the call's `write`/`end`, responses come from
   * its `messages()`. `deadline` is epoch ms or undefined for none.
   */
  stream(path: string, metadata: H2RequestMetadata, deadline: number | undefined): H2StreamCall {
    const opened = this.#request(path, metadata, deadline);
    return 'stream' in opened ? new H2StreamCall(opened.stream, opened.session, deadline) : H2StreamCall.failed(opened);
  }

  /**
   * Liveness: is the instance's process answering at all? Sent on a probe
   * connection of its own, never on the calls' one: gRPC servers in Go and
   * C++ count client pings against a policy and answer too many with GOAWAY
   * (`too_many_pings`), which must not cut calls in flight. Anything the
   * server sends proves it is alive: the PING ack, its SETTINGS on a fresh
   * connection, even that GOAWAY. A frozen or unreachable process sends
   * nothing. `done(true)` when something arrives within `timeoutMs`.
   */
  ping(timeoutMs: number, done: (alive: boolean) => void): void {
    let settled = false;
    let session: http2.ClientHttp2Session | undefined;
    const finish = (alive: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session?.off('remoteSettings', answered);
      session?.off('goaway', answered);
      done(alive);
    };
    const answered = (): void => finish(true);
    const timer = setTimeout(() => finish(false), timeoutMs);
    timer.unref();
    if (this.#closed) {
      finish(false);
      return;
    }
    const current = this.#probe;
    const fresh = current === undefined || current.closed || current.destroyed;
    try {
      session = fresh ? this.#openProbe() : current;
    } catch {
      finish(false);
      return;
    }
    const s = session;
    s.once('goaway', answered);
    if (fresh) s.once('remoteSettings', answered);
    const send = (): void => {
      try {
        if (!s.ping((error) => (error === null || error === undefined ? finish(true) : undefined))) finish(false);
      } catch {
        // The session is going away: its 'goaway' / the timeout decides.
      }
    };
    if (s.connecting) s.once('connect', send);
    else send();
  }

  #openProbe(): http2.ClientHttp2Session {
    const session = http2.connect(this.#authority);
    session.on('error', () => undefined);
    session.once('close', () => {
      if (this.#probe === session) this.#probe = undefined;
    });
    session.unref();
    this.#probe = session;
    return session;
  }

  /** Closes the session; later calls fail UNAVAILABLE. */
  close(): void {
    this.#closed = true;
    const session = this.#session;
    this.#session = undefined;
    session?.close();
    this.#probe?.destroy();
    this.#probe = undefined;
  }
}
