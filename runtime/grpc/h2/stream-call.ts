/**
 * A streaming call on fw's node:http2 gRPC server (server, client or bidi
 * streaming), which is fw's streaming call port itself (grpc-call-port.ts):
 * the method's serve function gets this object, reads `request` or
 * `requests` (request-stream.ts), and answers through `write`/`drained`/
 * `finish`, `reply` or `fail`, each going straight to the HTTP/2 stream
 * (responder.ts). No event emitter and no object-mode duplex: the one
 * event, cancellation, keeps its listeners in a slot.
 */
import type { IncomingHttpHeaders, ServerHttp2Session } from 'node:http2';
import { GrpcStatus } from '../../core/status';
import { addListener, runListeners, type ListenerSlot } from '../../core/listener-slot';
import type { STATE, StreamCompression } from '../compression';
import { GrpcError, type FwStatusObject } from '../errors';
import type { GrpcBidiStreamPort, GrpcClientStreamPort, GrpcServerStreamPort } from '../grpc-call-port';
import type { OutgoingMetadata } from '../metadata-map';
import { answer, attach, decode, expireDeadline, fail, onSingleData, onSingleEnd, pastDeadline, PlainBase, readerOf, withCallHead, type SingleRequest } from './calls';
import { RequestStream } from './request-stream';
import { CALL, frameMessage, sendStatus, type CallStream, type MessageLimits, type ServedMethod } from './responder';

const RESOLVED = Promise.resolve();

/** Any of the three streaming ports: the serve function of the method's kind takes this call. */
type ServeAny = (port: H2StreamCall) => void;

export class H2StreamCall extends withCallHead(PlainBase) implements SingleRequest, GrpcServerStreamPort, GrpcClientStreamPort, GrpcBidiStreamPort {
  #onCancel: ListenerSlot = undefined;
  /** Resolves the pending `drained()` (on drain, close or cancel). */
  #drainWaiter: (() => void) | undefined = undefined;
  /** The request messages (client and bidi streaming). */
  readonly #requests: RequestStream | undefined;

  constructor(stream: CallStream, served: ServedMethod, limits: MessageLimits, headers: IncomingHttpHeaders, deadline: number, compression: StreamCompression | undefined, session: ServerHttp2Session | undefined) {
    super();
    this.init(stream, served, limits, headers, deadline, compression, session);
    if (served.kind === 'serverStream') {
      this.#requests = undefined;
      attach(this, stream, onSingleData, onSingleEnd);
      return;
    }
    this.#requests = new RequestStream(() => stream.resume());
    attach(this, stream, onStreamData, onStreamEnd);
    this.#start();
  }

  get requests(): AsyncIterable<unknown> {
    return this.#requests ?? EMPTY;
  }

  /** Server streaming: the request arrived, run the handler. */
  begin(request: unknown): void {
    this.request = request;
    this.#start();
  }

  #start(): void {
    try {
      (this.served.streaming?.serve as ServeAny)(this);
    } catch (error) {
      fail(this, error);
    }
  }

  once(_event: 'cancelled', listener: () => void): this {
    this.#onCancel = addListener(this.#onCancel, listener);
    return this;
  }

  write(message: unknown): boolean {
    if (this.done) return true;
    const frame = frameMessage(this, message);
    return frame === undefined || this.stream.write(frame);
  }

  drained(): Promise<void> {
    const stream = this.stream;
    if (this.done || !stream.writableNeedDrain) return RESOLVED;
    return new Promise((resolve) => {
      const done = (): void => {
        stream.off('drain', done);
        stream.off('close', done);
        this.#drainWaiter = undefined;
        resolve();
      };
      this.#drainWaiter = done;
      stream.on('drain', done);
      stream.on('close', done);
    });
  }

  finish(trailers: OutgoingMetadata | undefined): void {
    if (pastDeadline(this)) expireDeadline(this);
    else sendStatus(this, GrpcStatus.OK, '', trailers);
  }

  reply(value: unknown, trailers: OutgoingMetadata | undefined): void {
    answer(this, null, value, trailers);
  }

  fail(status: FwStatusObject): void {
    answer(this, status, undefined, undefined);
  }

  /** The client cancelled or the deadline passed: listeners run, a handler waiting for a request message gets CANCELLED. */
  cancel(): void {
    this.cancelled = true;
    const listeners = this.#onCancel;
    this.#onCancel = undefined;
    runListeners(listeners);
    this.#drainWaiter?.();
    this.#requests?.fail(new GrpcError(GrpcStatus.CANCELLED, 'Call cancelled by the client'));
  }

  /** A request message arrived (client and bidi streaming). */
  take(message: unknown): boolean {
    return (this.#requests as RequestStream).push(message);
  }

  /** The request side ended; `error` when it ended badly (its status is already sent). */
  endRequests(error?: unknown): void {
    const requests = this.#requests as RequestStream;
    if (error === undefined) requests.end();
    else requests.fail(error);
  }
}

const EMPTY: AsyncIterable<unknown> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }) };

// Shared stream listeners: `this` is the HTTP/2 stream, the call hangs off it.

function onStreamData(this: CallStream, chunk: Buffer): void {
  const call = this[CALL] as H2StreamCall;
  if (call.done) return;
  try {
    const reader = readerOf(call);
    reader.push(chunk);
    for (let envelope = reader.next(); envelope !== undefined; envelope = reader.next()) {
      if (!call.take(decode(call, envelope))) this.pause();
    }
  } catch (error) {
    fail(call, error);
    call.endRequests(error);
  }
}

function onStreamEnd(this: CallStream): void {
  const call = this[CALL] as H2StreamCall;
  // A handler still reading after its call ended (a reply it could not send) still sees the end.
  if (call.done) {
    call.endRequests();
    return;
  }
  try {
    call.reader?.finish();
    call.endRequests();
  } catch (error) {
    fail(call, error);
    call.endRequests(error);
  }
}
