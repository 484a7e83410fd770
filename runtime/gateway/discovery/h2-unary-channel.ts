/**
 * The lean gRPC client the forwarder uses instead of a grpc-js Client when
 * the channel is plain (no credentials, no channel options): h2c HTTP/2
 * connections per instance (as many as its stream limit asks for,
 * h2-session-pool.ts), unary calls here, server, client and bidi streams
 * in h2-stream-call.ts, the wire in h2-grpc-wire.ts. A forwarded call is
 * already decoded (or passed through as bytes) and routed by the gateway;
 * grpc-js's client stack (resolver, retry, load-balancing and subchannel
 * call layers, interceptors, per-call Metadata objects) roughly doubled the
 * gateway's CPU per forwarded call.
 */
import * as http2 from 'node:http2';
import { GrpcStatus as GrpcCode } from '../../core/status';
import { ByteAccumulator } from '../../core/byte-accumulator';
import { callError, codeOf, codeOfHttpStatus, endedWithoutStatus, MAX_RESPONSE_BYTES, onlyMessage, frame, statusError, type H2CallError } from './h2-grpc-wire';
import { H2StreamCall } from './h2-stream-call';
import { H2SessionPool, type H2Connection } from './h2-session-pool';

export { callError, type H2CallError } from './h2-grpc-wire';

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM } = http2.constants;

/** How often one unary call is sent again after its stream was refused unprocessed. */
const MAX_REFUSALS = 3;

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

/** One HTTP/2 connection pool per instance (h2-session-pool.ts); unary and streaming calls. */
export class H2UnaryChannel {
  readonly #authority: string;
  readonly #pool: H2SessionPool;
  #closed = false;
  /** The liveness probe's own connection (see ping()). */
  #probe: http2.ClientHttp2Session | undefined = undefined;
  /** #open for the calls in flight (a unary call sends again through it after REFUSED_STREAM). */
  readonly #opener: Opener;

  /** `target` is `host:port` (IPv6 bracketed), as ServiceInstance.target gives it. */
  constructor(target: string) {
    this.#authority = `http://${target}`;
    this.#pool = new H2SessionPool(this.#authority);
    this.#opener = (headers) => this.#open(headers);
  }

  /** Connections open to the instance now (more than one once calls outnumber its stream limit). */
  get connections(): number {
    return this.#pool.size;
  }

  /**
   * Opens one call's stream: request headers with `metadata` and the
   * deadline as `grpc-timeout` (`deadline` epoch ms, or undefined for none).
   * Returns the error the call fails with instead when it cannot start. The
   * stream's connection is released by whoever sees the stream close.
   */
  #request(path: string, metadata: H2RequestMetadata, deadline: number | undefined): Opened | H2CallError {
    return this.#cannotStart() ?? this.#open(requestHeaders(path, metadata, deadline));
  }

  /** Why no call can start now, if so. */
  #cannotStart(): H2CallError | undefined {
    if (this.#closed) return callError(GrpcCode.UNAVAILABLE, 'Channel has been shut down');
    // The last connection attempt failed moments ago: fail now (the forwarder tries another instance).
    if (this.#pool.backingOff()) return callError(GrpcCode.UNAVAILABLE, `No connection to ${this.#authority} (the last attempt failed)`);
    return undefined;
  }

  /** A stream with `headers` on a connection with room for it; the caller releases the connection once the stream closed. */
  #open(headers: http2.OutgoingHttpHeaders): Opened | H2CallError {
    if (this.#closed) return callError(GrpcCode.UNAVAILABLE, 'Channel has been shut down');
    const connection = this.#pool.acquire();
    try {
      return { stream: connection.session.request(headers), connection };
    } catch (error) {
      connection.release();
      // The session was just checked to be open: this is a request we could not build (bad metadata).
      return callError(GrpcCode.INTERNAL, (error as Error).message);
    }
  }

  /**
   * Sends one unary call. `metadata` are extra request headers (lower-case
   * names, text values); `deadline` is epoch ms or undefined for none.
   */
  unary(path: string, message: Buffer, metadata: H2RequestMetadata, deadline: number | undefined, callback: H2UnaryCallback): H2UnaryCall {
    const refused = this.#cannotStart();
    if (refused !== undefined) {
      callback(refused, undefined, false, { headers: undefined, trailers: undefined });
      return NOT_STARTED;
    }
    const call = new PendingUnary(this.#opener, requestHeaders(path, metadata, deadline), frame(message), callback);
    if (deadline !== undefined) call.timer = setTimeout(onDeadline, Math.max(1, Math.ceil(deadline - Date.now())), call);
    send(call);
    return call;
  }

  /**
   * Starts a streaming call (server, client or bidirectional): request
   * messages go out through the call's `write`/`end`, responses come from
   * its `messages()`. `deadline` is epoch ms or undefined for none.
   */
  stream(path: string, metadata: H2RequestMetadata, deadline: number | undefined): H2StreamCall {
    const opened = this.#request(path, metadata, deadline);
    return 'stream' in opened ? new H2StreamCall(opened.stream, opened.connection, deadline) : H2StreamCall.failed(opened);
  }

  /**
   * Liveness: is the instance's process answering at all? Sent on a probe
   * connection of its own, never on the calls' one: gRPC servers in Go and
   * C++ count client pings against a policy and answer too many with GOAWAY
   * (`too_many_pings`), which must not cut calls in flight. Anything the
   * server sends proves it is alive: the PING ack, its SETTINGS on a fresh
   * connection, even that GOAWAY. A frozen or unreachable process sends
   * nothing. `done(true)` when something arrives within `timeoutMs` (counting
   * what arrived by the first I/O poll after it).
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
    // The verdict waits for one I/O poll after the timeout: when this process was busy (its own event
    // loop lagging), the ack may sit unread in the socket, and a live instance must not be taken for a frozen one.
    const timer = setTimeout(() => setImmediate(finish, false), timeoutMs);
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
    this.#pool.close();
    this.#probe?.destroy();
    this.#probe = undefined;
  }
}

const NOT_STARTED: H2UnaryCall = { cancel: () => undefined };

/** A call's stream and the connection it counts against. */
interface Opened {
  stream: http2.ClientHttp2Stream;
  connection: H2Connection;
}
type Opener = (headers: http2.OutgoingHttpHeaders) => Opened | H2CallError;

/** Sends (or, after REFUSED_STREAM, sends again) a unary call's request on a stream of its own. */
function send(call: PendingUnary): void {
  const opened = call.open(call.requestHeaders);
  if (!('stream' in opened)) {
    call.finish(opened, undefined);
    return;
  }
  const s = opened.stream as TaggedStream;
  call.stream = s;
  call.connection = opened.connection;
  s[CALL] = call;
  // Listeners shared by every call (`this` is the stream): no closures per call.
  s.on('response', onResponse);
  s.on('data', onData);
  s.on('trailers', onTrailers);
  s.on('error', onError);
  s.on('close', onClose);
  s.end(call.framed);
}

/** A call's request headers: `metadata` and the deadline as `grpc-timeout` (`deadline` epoch ms, or undefined for none). */
function requestHeaders(path: string, metadata: H2RequestMetadata, deadline: number | undefined): http2.OutgoingHttpHeaders {
  const headers: http2.OutgoingHttpHeaders = { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' };
  for (const key in metadata) headers[key] = metadata[key];
  if (deadline !== undefined) headers['grpc-timeout'] = `${Math.max(1, Math.ceil(deadline - Date.now()))}m`;
  return headers;
}

/** Where a unary call's stream carries its call, for the shared listeners. */
const CALL: unique symbol = Symbol('fw.h2UnaryCall');
type TaggedStream = http2.ClientHttp2Stream & { [CALL]: PendingUnary };

/** One unary call in flight: what has arrived so far, and how it ends (once). */
class PendingUnary implements H2UnaryCall, H2Reply {
  headers: http2.IncomingHttpHeaders | undefined = undefined;
  trailers: http2.IncomingHttpHeaders | undefined = undefined;
  /** The instance sent response headers (not a trailers-only answer). */
  answered = false;
  finished = false;
  timer: NodeJS.Timeout | undefined = undefined;
  /** The response body: its one chunk, or an accumulator once there are more (held in bounded blocks). */
  body: Buffer | ByteAccumulator | undefined = undefined;
  size = 0;
  streamError: Error | undefined = undefined;
  /** The current attempt's stream and its connection (set by send()). */
  stream: http2.ClientHttp2Stream | undefined = undefined;
  connection: H2Connection | undefined = undefined;
  /** Times the instance refused the stream unprocessed (REFUSED_STREAM) and it was sent again. */
  refusals = 0;

  constructor(readonly open: Opener, readonly requestHeaders: http2.OutgoingHttpHeaders, readonly framed: Buffer, readonly callback: H2UnaryCallback) {}

  finish(error: H2CallError | null, message: Buffer | undefined): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.callback(error, message, this.answered, this);
  }

  /** Ends the call with `error` now and resets its stream. */
  fail(error: H2CallError): void {
    this.finish(error, undefined);
    this.stream?.close(NGHTTP2_CANCEL);
  }

  cancel(): void {
    if (!this.finished) this.fail(callError(GrpcCode.CANCELLED, 'Cancelled on client'));
  }

  wholeBody(): Buffer {
    const b = this.body;
    return b === undefined ? Buffer.alloc(0) : b instanceof ByteAccumulator ? b.take() : b;
  }
}

function onDeadline(call: PendingUnary): void {
  call.timer = undefined;
  call.fail(callError(GrpcCode.DEADLINE_EXCEEDED, 'Deadline exceeded'));
}

function onResponse(this: TaggedStream, h: http2.IncomingHttpHeaders): void {
  const call = this[CALL];
  // A trailers-only answer carries no response headers of its own: like grpc-js, not "answered".
  if (h['grpc-status'] !== undefined) {
    call.trailers = h;
    return;
  }
  call.answered = true;
  call.headers = h;
  const httpStatus = h[':status'];
  if (Number(httpStatus) !== 200) call.fail(callError(codeOfHttpStatus(Number(httpStatus)), `Received HTTP status code ${String(httpStatus)}`));
}

function onData(this: TaggedStream, chunk: Buffer): void {
  const call = this[CALL];
  call.size += chunk.length;
  if (call.size > MAX_RESPONSE_BYTES + 5) {
    if (!call.finished) call.fail(callError(GrpcCode.RESOURCE_EXHAUSTED, `Received message larger than max (${call.size} vs ${MAX_RESPONSE_BYTES})`));
    return;
  }
  const b = call.body;
  if (b === undefined) {
    call.body = chunk;
  } else if (b instanceof ByteAccumulator) {
    b.push(chunk);
  } else {
    const body = (call.body = new ByteAccumulator());
    body.push(b);
    body.push(chunk);
  }
}

function onTrailers(this: TaggedStream, t: http2.IncomingHttpHeaders): void {
  this[CALL].trailers = t;
}

function onError(this: TaggedStream, error: Error): void {
  // The 'close' that follows decides the status, from the reset code and the connection's state.
  this[CALL].streamError = error;
}

function onClose(this: TaggedStream): void {
  const call = this[CALL];
  const connection = call.connection as H2Connection;
  connection.release();
  if (call.finished) return;
  const trailers = call.trailers;
  if (trailers === undefined) {
    // Refused unprocessed (more streams than the instance allows, sent before its SETTINGS said so): safe to send again.
    if (this.rstCode === NGHTTP2_REFUSED_STREAM && !call.answered && call.refusals < MAX_REFUSALS) {
      call.refusals++;
      call.body = undefined;
      call.size = 0;
      call.streamError = undefined;
      send(call);
      return;
    }
    const session = connection.session;
    const connectionGone = session.closed || session.destroyed;
    // The instance's handler finished and its whole reply arrived; only the status was lost with the
    // connection (an instance killed between its writes). Servers send a unary reply only on success,
    // so this is that success: failing would lose it, retrying would run the call twice.
    const whole = call.answered && connectionGone ? onlyMessage(call.wholeBody()) : undefined;
    if (whole !== undefined) call.finish(null, whole);
    else call.finish(endedWithoutStatus(this.rstCode ?? 0, connectionGone, call.answered, call.streamError), undefined);
    return;
  }
  const code = codeOf(trailers);
  if (code !== GrpcCode.OK) {
    call.finish(statusError(code, trailers), undefined);
    return;
  }
  const all = call.wholeBody();
  const one = onlyMessage(all);
  if (one === undefined) {
    call.finish(callError(GrpcCode.INTERNAL, all.length >= 5 && all[0] === 1 ? 'Compressed response not supported' : 'Expected exactly one response message'), undefined);
    return;
  }
  call.finish(null, one);
}
