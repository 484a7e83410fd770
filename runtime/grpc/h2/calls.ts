/**
 * The call objects fw's node:http2 gRPC server makes, each fw's call port
 * (grpc-call-port.ts) itself: a plain object with the request, metadata,
 * peer, deadline, cancellation and the reply side, handed to the method's
 * serve function. This file holds what every call shares and the unary call;
 * the streaming call is stream-call.ts. Metadata and the peer are only built
 * when read, and the stream's listeners are shared functions that find the
 * call on the stream, not closures made per call.
 */
import { gunzipSync } from 'node:zlib';
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Session } from 'node:http2';
import { LengthPrefixedReader, type Envelope, type EnvelopeErrors } from '../../core/envelope-reader';
import { GrpcStatus } from '../../core/status';
import { newStreamCompression, STATE, type StreamCompression } from '../compression';
import { CALL, frameMessage, sendHeaders, sendLast, sendStatus, type CallStream, type MessageLimits, type Responder, type ServedMethod } from './responder';
import { GrpcError, undecodableRequest, type FwStatusObject } from '../errors';
import type { GrpcUnaryPort, ServeUnary } from '../grpc-call-port';
import { addListener, runListeners, type ListenerSlot } from '../../core/listener-slot';
import type { PendingRequest } from '../pending-requests';
import { requestMetadata } from './wire';
import { isOutgoingMetadata, type MetadataMap, type OutgoingMetadata } from '../metadata-map';

/** A status as grpc-js handlers report one (callback error or `emit('error')`). */
interface StatusLike {
  code?: number;
  details?: string;
  message?: string;
  metadata?: OutgoingMetadata;
}

const READER_ERRORS: EnvelopeErrors = {
  tooLarge: (size, limit) => new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (${size} vs. ${limit})`),
  truncated: () => new GrpcError(GrpcStatus.INTERNAL, 'Request ended inside a message (truncated length-prefixed frame)'),
};

/** What every call knows of its request. */
export interface CallHead extends Responder, PendingRequest {
  readonly headers: IncomingHttpHeaders;
  /** Absolute deadline in epoch ms (Infinity for none). */
  readonly deadline: number;
  /**
   * Framing of the request body. A single-message call whose body arrives in
   * one chunk (nearly all unary calls) never builds one: the chunk waits in
   * `firstChunk` and is read in place at END_STREAM.
   */
  reader: LengthPrefixedReader | undefined;
  firstChunk: Buffer | undefined;
  cancelled: boolean;
}

/** Either call class (this file's unary call, stream-call.ts's streaming one): the server cancels it. */
export interface ServedCall extends CallHead {
  cancel(): void;
}

const PEER = Symbol('fw.grpc.peer');

/** `address:port` of the caller, read from the socket once per connection (the session's socket is a Proxy, slow to read). */
function peerOf(stream: CallStream): string {
  const session = stream.session as (NonNullable<CallStream['session']> & { [PEER]?: string }) | undefined;
  if (session === undefined) return 'unknown';
  let peer = session[PEER];
  if (peer === undefined) {
    const socket = session.socket;
    peer = socket?.remoteAddress === undefined ? 'unknown' : socket.remotePort === undefined ? socket.remoteAddress : `${socket.remoteAddress}:${socket.remotePort}`;
    session[PEER] = peer;
  }
  return peer;
}

/** One request message: decompressed when flagged, then deserialized; throws a GrpcError. */
export function decode(call: CallHead, envelope: Envelope): unknown {
  let bytes = envelope.data;
  if ((envelope.flags & 1) !== 0) {
    if (call.headers['grpc-encoding'] !== 'gzip') throw new GrpcError(GrpcStatus.INTERNAL, 'Compressed message received without grpc-encoding');
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: call.limits.maxReceive });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, `Received message larger than max (decompressed over ${call.limits.maxReceive})`);
      throw new GrpcError(GrpcStatus.INTERNAL, 'Received a message that is not valid gzip');
    }
    const state = call[STATE] ?? (call[STATE] = newStreamCompression(undefined));
    state.requestCompressed = true;
  }
  try {
    return call.served.deserialize(bytes);
  } catch (error) {
    // The caller's bytes do not decode: its fault, INVALID_ARGUMENT as the gateway answers it.
    throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, undecodableRequest(error));
  }
}

/** A failure inside the server: its status when it carries a gRPC code (GrpcError, a status object), else INTERNAL. */
export function fail(call: Responder, error: unknown): void {
  if (typeof (error as StatusLike | null)?.code === 'number') reportStatus(call, error as StatusLike);
  else sendStatus(call, GrpcStatus.INTERNAL, 'Internal server error', undefined);
}

function reportStatus(call: Responder, status: StatusLike): void {
  sendStatus(call, typeof status.code === 'number' ? status.code : GrpcStatus.UNKNOWN, status.details ?? status.message ?? 'Unknown error', isOutgoingMetadata(status.metadata) ? status.metadata : undefined);
}

/** The answer of a unary or client-streaming call, or the failure of any call. */
export function answer(call: ServedCall, error: StatusLike | null, value: unknown, trailers: OutgoingMetadata | undefined): void {
  if (call.done) return;
  if (pastDeadline(call)) {
    // The handler's own deadline timer (its signal) can fire before the server's: the caller still gets DEADLINE_EXCEEDED.
    expireDeadline(call);
    return;
  }
  if (error !== null && error !== undefined) {
    reportStatus(call, error);
    return;
  }
  const frame = frameMessage(call, value);
  if (frame !== undefined) sendLast(call, frame, trailers);
}

// Shared stream listeners: `this` is the HTTP/2 stream, the call hangs off it.

export function readerOf(call: CallHead): LengthPrefixedReader {
  return (call.reader ??= new LengthPrefixedReader(call.limits.maxReceive, READER_ERRORS));
}

export function onSingleData(this: CallStream, chunk: Buffer): void {
  const call = this[CALL] as SingleRequest;
  if (call.done) return;
  try {
    // An oversized length prefix is refused as soon as it is seen, not at END_STREAM.
    if (call.reader === undefined && call.firstChunk === undefined && (chunk.length < 5 || chunk.readUInt32BE(1) <= call.limits.maxReceive)) {
      call.firstChunk = chunk;
      return;
    }
    const reader = readerOf(call);
    const first = call.firstChunk;
    if (first !== undefined) {
      call.firstChunk = undefined;
      reader.push(first);
    }
    reader.push(chunk);
    // A unary body holds one message: a second one is refused now, so an endless body is never held.
    if (reader.ready > 1) throw new GrpcError(GrpcStatus.INTERNAL, 'Request carried more than one message');
  } catch (error) {
    fail(call, error);
  }
}

/** The one message of a body that arrived as one chunk holding exactly one in-limit frame; else undefined. */
function wholeFrame(call: CallHead, chunk: Buffer): Envelope | undefined {
  if (chunk.length < 5) return undefined;
  const size = chunk.readUInt32BE(1);
  if (size > call.limits.maxReceive || chunk.length !== 5 + size) return undefined;
  return { flags: chunk[0] as number, data: chunk.subarray(5) };
}

export function onSingleEnd(this: CallStream): void {
  const call = this[CALL] as SingleRequest;
  call.limits.pendingRequests?.release(call);
  if (call.done) return;
  try {
    const first = call.firstChunk;
    if (first !== undefined) {
      call.firstChunk = undefined;
      const envelope = wholeFrame(call, first);
      if (envelope !== undefined) {
        call.begin(decode(call, envelope));
        return;
      }
      // Anything else (a short, oversized, truncated or second frame) takes the reader's path and its errors.
      readerOf(call).push(first);
    }
    const reader = readerOf(call);
    const envelope = reader.next();
    if (envelope === undefined) {
      reader.finish();
      throw new GrpcError(GrpcStatus.INTERNAL, 'Request carried no message');
    }
    if (reader.pending) throw new GrpcError(GrpcStatus.INTERNAL, 'Request carried more than one message');
    call.begin(decode(call, envelope));
  } catch (error) {
    fail(call, error);
  }
}

/** `stream` closed: a call not yet answered was cancelled (client RST_STREAM, connection gone). */
export function callStreamClosed(stream: CallStream): void {
  const call = stream[CALL] as ServedCall | undefined;
  if (call === undefined) return;
  // A request cancelled while still arriving leaves the timeout list now, not when its timeout comes.
  call.limits.pendingRequests?.release(call);
  if (call.done) return;
  call.done = true;
  call.cancel();
}

/** Deadline passed: DEADLINE_EXCEEDED to the client, then the handler's call is cancelled. */
export function expireDeadline(call: ServedCall): void {
  call.deadlineTimer = undefined;
  if (call.done) return;
  sendStatus(call, GrpcStatus.DEADLINE_EXCEEDED, 'Deadline exceeded', undefined);
  call.cancel();
}

export function pastDeadline(call: CallHead): boolean {
  return call.deadline !== Infinity && Date.now() >= call.deadline;
}

/** Calls that take one request message: unary and server streaming. */
export interface SingleRequest extends CallHead {
  begin(request: unknown): void;
}

/** Hangs `call` on its stream and reads the request through the shared listeners. */
export function attach(call: CallHead, stream: CallStream, onData: (this: CallStream, chunk: Buffer) => void, onEnd: (this: CallStream) => void): void {
  stream[CALL] = call;
  stream.on('data', onData);
  stream.on('end', onEnd);
}

// TypeScript accepts a class as a mixin base only with an `any[]` constructor.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type BaseClass = abstract new (...args: any[]) => object;

/** The calls' base: each is fw's call port, no event emitter. */
export class PlainBase {}

/** The fields and call surface both call classes share. */
// eslint-disable-next-line @typescript-eslint/explicit-function-return-type
export function withCallHead<Base extends BaseClass>(base: Base) {
  abstract class CallHeadBase extends base implements CallHead {
    stream!: CallStream;
    served!: ServedMethod;
    limits!: MessageLimits;
    headers!: IncomingHttpHeaders;
    deadline!: number;
    reader: LengthPrefixedReader | undefined = undefined;
    firstChunk: Buffer | undefined = undefined;
    request: unknown = undefined;
    cancelled = false;
    headersSent = false;
    done = false;
    trailers: OutgoingHttpHeaders | undefined = undefined;
    deadlineTimer: NodeJS.Timeout | undefined = undefined;
    [STATE]?: StreamCompression;
    /** Built on first read of `metadata` / `getPeer()`. */
    metadataRead: MetadataMap | undefined = undefined;
    peerRead: string | undefined = undefined;

    /** The connection, for its count of open streams. */
    session: ServerHttp2Session | undefined = undefined;
    // The list of requests still arriving (../pending-requests.ts).
    pendingSince = 0;
    pendingPrev: PendingRequest | undefined = undefined;
    pendingNext: PendingRequest | undefined = undefined;
    pendingListed = false;

    /** Sets the call up; run by each subclass constructor. */
    init(stream: CallStream, served: ServedMethod, limits: MessageLimits, headers: IncomingHttpHeaders, deadline: number, compression: StreamCompression | undefined, session: ServerHttp2Session | undefined): void {
      this.stream = stream;
      this.session = session;
      this.served = served;
      this.limits = limits;
      this.headers = headers;
      this.deadline = deadline;
      if (compression !== undefined) this[STATE] = compression;
    }
    get metadata(): MetadataMap {
      return (this.metadataRead ??= requestMetadata(this.headers));
    }
    getPeer(): string {
      return (this.peerRead ??= peerOf(this.stream));
    }
    getDeadline(): number {
      return this.deadline;
    }
    getPath(): string {
      return this.served.path;
    }
    sendMetadata(metadata: OutgoingMetadata): void {
      sendHeaders(this, metadata);
    }
  }
  return CallHeadBase;
}

/**
 * A unary call, which is fw's call port itself (grpc-call-port.ts): the
 * method's serve function gets this object and replies through it. No
 * event emitter and no callback per call; the one event, cancellation,
 * keeps its listeners in a slot.
 */
export class H2UnaryCall extends withCallHead(PlainBase) implements SingleRequest, GrpcUnaryPort {
  #onCancel: ListenerSlot = undefined;

  constructor(stream: CallStream, served: ServedMethod, limits: MessageLimits, headers: IncomingHttpHeaders, deadline: number, compression: StreamCompression | undefined, session: ServerHttp2Session | undefined) {
    super();
    this.init(stream, served, limits, headers, deadline, compression, session);
    attach(this, stream, onSingleData, onSingleEnd);
  }

  begin(request: unknown): void {
    this.request = request;
    try {
      (this.served.serve as ServeUnary)(this);
    } catch (error) {
      fail(this, error);
    }
  }

  once(_event: 'cancelled', listener: () => void): this {
    this.#onCancel = addListener(this.#onCancel, listener);
    return this;
  }

  reply(value: unknown, trailers: OutgoingMetadata | undefined): void {
    answer(this, null, value, trailers);
  }

  fail(status: FwStatusObject): void {
    answer(this, status, undefined, undefined);
  }

  cancel(): void {
    this.cancelled = true;
    const listeners = this.#onCancel;
    this.#onCancel = undefined;
    runListeners(listeners);
  }
}
