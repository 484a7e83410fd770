/**
 * A lean gRPC unary client over one plain-h2c HTTP/2 session per instance,
 * used by the forwarder instead of a grpc-js Client when the channel is plain
 * (no credentials, no channel options). A forwarded call is already decoded,
 * checked and routed by the gateway; grpc-js's client stack (resolver,
 * retry, load-balancing and subchannel call layers, interceptors, per-call
 * Metadata objects) roughly doubled the gateway's CPU per forwarded call.
 * The wire format is the gRPC-over-HTTP/2 one: length-prefixed messages,
 * `grpc-timeout`, status in trailers (or trailers-only headers).
 */
import * as http2 from 'node:http2';
import { Metadata, status as GrpcCode } from '@grpc/grpc-js';

/** How long calls fail fast after a failed connection attempt (grpc-js's initial reconnect backoff). */
const RECONNECT_BACKOFF_MS = 1000;

/** grpc-js's default largest message a client accepts. */
const MAX_RESPONSE_BYTES = 4 << 20;

const {
  NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM, NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_INADEQUATE_SECURITY,
} = http2.constants;

/** The error a failed call ends with: shaped like grpc-js's ServiceError. */
export interface H2CallError extends Error {
  code: number;
  details: string;
  metadata: Metadata;
}

/**
 * How a call ended: `error` null on OK with the response message bytes;
 * `answered` tells whether the instance sent response headers (a call
 * refused before that is safe to retry elsewhere).
 */
export type H2UnaryCallback = (error: H2CallError | null, message: Buffer | undefined, answered: boolean) => void;

/** A started call; `cancel` ends it CANCELLED. */
export interface H2UnaryCall {
  cancel(): void;
}

const CODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(GrpcCode).filter(([, v]) => typeof v === 'number').map(([k, v]) => [v, k]));

/** Builds an error with grpc-js's message format (`14 UNAVAILABLE: details`). */
export function callError(code: number, details: string, metadata = new Metadata()): H2CallError {
  const error = new Error(`${code} ${CODE_NAMES[code] ?? 'UNKNOWN'}: ${details}`) as H2CallError;
  error.code = code;
  error.details = details;
  error.metadata = metadata;
  return error;
}

/** gRPC's mapping of a non-200 HTTP status to a status code (as grpc-js does). */
function codeOfHttpStatus(httpStatus: number): number {
  switch (httpStatus) {
    case 400: return GrpcCode.INTERNAL;
    case 401: return GrpcCode.UNAUTHENTICATED;
    case 403: return GrpcCode.PERMISSION_DENIED;
    case 404: return GrpcCode.UNIMPLEMENTED;
    case 429: case 502: case 503: case 504: return GrpcCode.UNAVAILABLE;
    default: return GrpcCode.UNKNOWN;
  }
}

function codeOfReset(rstCode: number): number {
  switch (rstCode) {
    case NGHTTP2_REFUSED_STREAM: return GrpcCode.UNAVAILABLE;
    case NGHTTP2_CANCEL: return GrpcCode.CANCELLED;
    case NGHTTP2_ENHANCE_YOUR_CALM: return GrpcCode.RESOURCE_EXHAUSTED;
    case NGHTTP2_INADEQUATE_SECURITY: return GrpcCode.PERMISSION_DENIED;
    default: return GrpcCode.INTERNAL;
  }
}

/**
 * The status of a stream that closed without a gRPC status: UNAVAILABLE when
 * its connection went away (instance gone, GOAWAY, refused), as in grpc-js;
 * else from the peer's reset code; INTERNAL for a clean end with no status.
 */
function endedWithoutStatus(rstCode: number, connectionGone: boolean, answered: boolean, streamError: Error | undefined): H2CallError {
  if (connectionGone || rstCode === NGHTTP2_REFUSED_STREAM) {
    return callError(GrpcCode.UNAVAILABLE, answered ? 'Connection dropped before the call finished' : (streamError?.message ?? 'Connection closed before the call was answered'));
  }
  if (rstCode !== 0) return callError(codeOfReset(rstCode), `Received RST_STREAM with code ${rstCode}`);
  if (streamError !== undefined) return callError(GrpcCode.UNAVAILABLE, streamError.message);
  return callError(GrpcCode.INTERNAL, 'Call ended without a gRPC status');
}

function decodeMessage(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The gRPC status code in trailers (or trailers-only headers); UNKNOWN when missing or out of range. */
function codeOf(headers: http2.IncomingHttpHeaders): number {
  const raw = headers['grpc-status'];
  if (raw === '0') return GrpcCode.OK;
  const code = raw === undefined ? GrpcCode.UNKNOWN : Number(raw);
  return Number.isInteger(code) && code >= 0 && code <= 16 ? code : GrpcCode.UNKNOWN;
}

/** The error for a non-OK status: message and the remaining trailers as Metadata (built only for failures). */
function statusError(code: number, headers: http2.IncomingHttpHeaders): H2CallError {
  const raw = headers['grpc-status'];
  const message = headers['grpc-message'];
  const details = typeof message === 'string' ? decodeMessage(message) : raw === undefined ? 'No status received' : '';
  const rest: http2.IncomingHttpHeaders = {};
  for (const key of Object.keys(headers)) {
    if (key[0] === ':' || key === 'grpc-status' || key === 'grpc-message' || key === 'content-type') continue;
    rest[key] = headers[key];
  }
  return callError(code, details, Metadata.fromHttp2Headers(rest));
}

/** The response body's one uncompressed message, or undefined when the body is not exactly one. */
function onlyMessage(body: Buffer): Buffer | undefined {
  return body.length >= 5 && body[0] === 0 && body.readUInt32BE(1) === body.length - 5 ? body.subarray(5) : undefined;
}

/** Frames one message: flag byte 0 (uncompressed), 4-byte big-endian length, bytes. */
function frame(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

/** One HTTP/2 session to one instance, reopened after it closes; unary calls only. */
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
   * Sends one unary call. `metadata` are extra request headers (lower-case
   * names, string values); `deadline` is epoch ms or undefined for none.
   */
  unary(path: string, message: Buffer, metadata: Record<string, string>, deadline: number | undefined, callback: H2UnaryCallback): H2UnaryCall {
    let finished = false;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (error: H2CallError | null, body: Buffer | undefined): void => {
      if (finished) return;
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      callback(error, body, answered);
    };
    if (this.#closed) {
      finish(callError(GrpcCode.UNAVAILABLE, 'Channel has been shut down'), undefined);
      return { cancel: () => undefined };
    }
    if (this.#retryAt > Date.now()) {
      // The last connection attempt failed moments ago: fail now (the forwarder tries another instance).
      finish(callError(GrpcCode.UNAVAILABLE, `No connection to ${this.#authority} (the last attempt failed)`), undefined);
      return { cancel: () => undefined };
    }
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers',
    };
    for (const key of Object.keys(metadata)) headers[key] = metadata[key];
    let stream: http2.ClientHttp2Stream | undefined;
    if (deadline !== undefined) {
      const ms = Math.max(1, Math.ceil(deadline - Date.now()));
      headers['grpc-timeout'] = `${ms}m`;
      timer = setTimeout(() => {
        finish(callError(GrpcCode.DEADLINE_EXCEEDED, 'Deadline exceeded'), undefined);
        stream?.close(NGHTTP2_CANCEL);
      }, ms);
    }
    let session: http2.ClientHttp2Session;
    try {
      session = this.#open();
      stream = session.request(headers);
    } catch (error) {
      // The session was just checked to be open: this is a request we could not build (bad metadata).
      finish(callError(GrpcCode.INTERNAL, (error as Error).message), undefined);
      return { cancel: () => undefined };
    }
    const s = stream;
    let chunks: Buffer[] | undefined;
    let size = 0;
    let trailers: http2.IncomingHttpHeaders | undefined;
    s.on('response', (h) => {
      const httpStatus = h[':status'];
      // A trailers-only answer carries no response headers of its own: like grpc-js, not "answered".
      if (h['grpc-status'] !== undefined) {
        trailers = h;
        return;
      }
      answered = true;
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
      trailers = t;
    });
    let streamError: Error | undefined;
    s.on('error', (error: Error) => {
      // The 'close' that follows decides the status, from the reset code and the connection's state.
      streamError = error;
    });
    s.on('close', () => {
      if (finished) return;
      const body = (): Buffer => (chunks === undefined ? Buffer.alloc(0) : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
      if (trailers === undefined) {
        const connectionGone = session.closed || session.destroyed;
        // The instance's handler finished and its whole reply arrived; only the status was lost with the
        // connection (an instance killed between its writes). Servers send a unary reply only on success,
        // so this is that success: failing would lose it, retrying would run the call twice.
        const reply = answered && connectionGone ? onlyMessage(body()) : undefined;
        if (reply !== undefined) finish(null, reply);
        else finish(endedWithoutStatus(s.rstCode ?? 0, connectionGone, answered, streamError), undefined);
        return;
      }
      const code = codeOf(trailers);
      if (code !== GrpcCode.OK) {
        finish(statusError(code, trailers), undefined);
        return;
      }
      const all = body();
      const reply = onlyMessage(all);
      if (reply === undefined) {
        finish(callError(GrpcCode.INTERNAL, all.length >= 5 && all[0] === 1 ? 'Compressed response not supported' : 'Expected exactly one response message'), undefined);
        return;
      }
      finish(null, reply);
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
