/**
 * One streaming gRPC call (server, client or bidirectional) on the lean
 * forwarding client's HTTP/2 connections (h2-unary-channel.ts): request messages
 * are framed onto the stream with HTTP/2's own flow control as backpressure,
 * response messages are cut out of the body as it arrives and read with
 * `messages()`, which ends with the call's status: OK returns, anything else
 * throws an error shaped like grpc-js's (h2-grpc-wire.ts).
 */
import type * as http2 from 'node:http2';
import { constants } from 'node:http2';
import { GrpcStatus as GrpcCode } from '../../core/status';
import { drainOrClose } from '../drain-or-close';
import type { H2Connection } from './h2-session-pool';
import { callError, codeOf, codeOfHttpStatus, endedWithoutStatus, frame, MessageReader, statusError, type H2CallError } from './h2-grpc-wire';

const { NGHTTP2_CANCEL } = constants;

export class H2StreamCall {
  readonly #stream: http2.ClientHttp2Stream | undefined;
  readonly #connection: H2Connection | undefined;
  /** Why the call failed on this side (cancelled, deadline, unreadable answer), decided before the stream closed. */
  #failure: H2CallError | undefined;
  #answered = false;
  #headers: http2.IncomingHttpHeaders | undefined = undefined;
  #trailers: http2.IncomingHttpHeaders | undefined = undefined;
  #streamError: Error | undefined = undefined;
  #timer: NodeJS.Timeout | undefined = undefined;
  readonly #closed: Promise<void>;

  /** A call that could not start: `messages()` throws `error`. */
  static failed(error: H2CallError): H2StreamCall {
    return new H2StreamCall(undefined, undefined, undefined, error);
  }

  constructor(stream: http2.ClientHttp2Stream | undefined, connection: H2Connection | undefined, deadline: number | undefined, failure?: H2CallError) {
    this.#stream = stream;
    this.#connection = connection;
    this.#failure = failure;
    if (stream === undefined) {
      this.#closed = Promise.resolve();
      return;
    }
    this.#closed = new Promise((resolve) =>
      stream.once('close', () => {
        connection?.release();
        resolve();
      }),
    );
    stream.on('response', (h) => {
      // A trailers-only answer carries no response headers of its own: like grpc-js, not "answered".
      if (h['grpc-status'] !== undefined) {
        this.#trailers = h;
        return;
      }
      this.#answered = true;
      this.#headers = h;
      const httpStatus = Number(h[':status']);
      if (httpStatus !== 200) this.#fail(callError(codeOfHttpStatus(httpStatus), `Received HTTP status code ${httpStatus}`));
    });
    stream.on('trailers', (t) => {
      this.#trailers = t;
    });
    stream.on('error', (error: Error) => {
      // The status is decided once the stream closed, from the reset code and the connection's state.
      this.#streamError = error;
    });
    if (deadline !== undefined) {
      this.#timer = setTimeout(() => this.#fail(callError(GrpcCode.DEADLINE_EXCEEDED, 'Deadline exceeded')), Math.max(1, Math.ceil(deadline - Date.now())));
      stream.once('close', () => clearTimeout(this.#timer));
    }
  }

  /** True once the instance sent response headers (its handler took the call). */
  get answered(): boolean {
    return this.#answered;
  }

  /** The instance's response headers; undefined before they came or for a trailers-only answer. */
  get responseHeaders(): http2.IncomingHttpHeaders | undefined {
    return this.#headers;
  }

  /** The instance's trailers (or trailers-only headers) once the call ended. */
  get trailers(): http2.IncomingHttpHeaders | undefined {
    return this.#trailers;
  }

  /** Sends one request message; false when the caller should wait for `drained()`. */
  write(message: Buffer): boolean {
    const s = this.#stream;
    if (s === undefined || s.destroyed || s.writableEnded) return true;
    return s.write(frame(message));
  }

  /** Resolves when the stream takes more writes (or has ended). */
  drained(): Promise<void> {
    const s = this.#stream;
    return s === undefined || s.destroyed || !s.writableNeedDrain ? Promise.resolve() : drainOrClose(s);
  }

  /** Half-closes the request side: no more request messages. */
  end(): void {
    const s = this.#stream;
    if (s !== undefined && !s.destroyed && !s.writableEnded) s.end();
  }

  /** Ends the call CANCELLED and resets its stream (the instance's handler sees the cancellation). */
  cancel(): void {
    this.#fail(callError(GrpcCode.CANCELLED, 'Cancelled on client'));
  }

  /** Ends the call with `code` (its stream reset CANCEL): the instance was found unresponsive. */
  abort(code: number, details: string): void {
    this.#fail(callError(code, details));
  }

  #fail(error: H2CallError): void {
    this.#failure ??= error;
    const s = this.#stream;
    if (s !== undefined && !s.destroyed) s.close(NGHTTP2_CANCEL);
  }

  /**
   * The response messages as they arrive; ends when the call ends OK,
   * throws its error otherwise. Leaving the loop early cancels the call.
   */
  async *messages(): AsyncGenerator<Buffer> {
    const s = this.#stream;
    if (s === undefined) throw this.#failure as H2CallError;
    const reader = new MessageReader();
    let ended = false;
    try {
      try {
        for await (const chunk of s.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
          if (this.#failure !== undefined) break;
          for (const message of reader.push(chunk)) yield message;
        }
      } catch (error) {
        // An unreadable message (compressed, too large) fails the call here; stream errors are read below.
        if (typeof (error as H2CallError).code === 'number') this.#fail(error as H2CallError);
      }
      await this.#closed;
      ended = true;
      const error = this.#status(reader);
      if (error !== undefined) throw error;
    } finally {
      if (!ended) this.cancel();
    }
  }

  /** The call's outcome once its stream closed: undefined for OK, else the error. */
  #status(reader: MessageReader): H2CallError | undefined {
    if (this.#failure !== undefined) return this.#failure;
    const trailers = this.#trailers;
    const s = this.#stream as http2.ClientHttp2Stream;
    if (trailers === undefined) {
      const session = this.#connection?.session;
      const gone = session === undefined || session.closed || session.destroyed;
      return endedWithoutStatus(s.rstCode ?? 0, gone, this.#answered, this.#streamError);
    }
    const code = codeOf(trailers);
    if (code !== GrpcCode.OK) return statusError(code, trailers);
    if (reader.partial) return callError(GrpcCode.INTERNAL, 'The response ended in the middle of a message');
    return undefined;
  }
}
