/**
 * The response side of one call on fw's node:http2 gRPC server: headers sent
 * once (gzip announced there when chosen), messages framed and size-checked,
 * and the status as trailers — or as a Trailers-Only response when nothing
 * was sent before it. Functions over the call's fields rather than a second
 * object per call; both call classes (calls.ts) carry these fields.
 */
import type { OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { GrpcStatus } from '../../core/status';
import { decideAdvertised, frameResponse, STATE, type StreamCompression } from '../compression';
import type { OutgoingMetadata } from '../metadata-map';
import type { ServeStream, ServeUnary } from '../grpc-call-port';
import type { CompressionSettings } from '../options';
import type { PendingRequests } from '../pending-requests';
import { addMetadataHeaders, statusHeaders } from './wire';

/** The four call kinds, by which a call object is made. */
export type CallKind = 'unary' | 'serverStream' | 'clientStream' | 'bidi';

/** One method as the server serves it. */
export interface ServedMethod {
  readonly path: string;
  readonly kind: CallKind;
  readonly deserialize: (bytes: Buffer) => unknown;
  readonly serialize: (value: unknown) => Buffer;
  /** `serialize` with the gRPC message prefix written in the same buffer, when the codec has it (compiled codecs). */
  readonly serializeFramed: ((value: unknown) => Buffer) | undefined;
  /** App-wide response compression for this method, if on. */
  readonly compression: CompressionSettings | undefined;
  /** A unary method's serve function: the call object is its port (grpc-call-port.ts). */
  readonly serve: ServeUnary | undefined;
  /** A streaming method's serve function: the call object is its port too. */
  readonly streaming: ServeStream | undefined;
}

/** Message size limits of one server, and its watch over requests that never complete. */
export interface MessageLimits {
  readonly maxReceive: number;
  readonly maxSend: number;
  /** Unary and server-streaming requests must complete in time (released when their END_STREAM arrives). */
  readonly pendingRequests: PendingRequests | undefined;
}

/** The fields of a call the response functions use. */
export interface Responder {
  readonly stream: ServerHttp2Stream;
  readonly served: ServedMethod;
  readonly limits: MessageLimits;
  headersSent: boolean;
  /** True once the status is sent (or the stream is gone). */
  done: boolean;
  /** The status trailers, read when the HTTP/2 stream asks for them. */
  trailers: OutgoingHttpHeaders | undefined;
  deadlineTimer: NodeJS.Timeout | undefined;
  [STATE]?: StreamCompression;
}

/** Where a stream's call is found by the shared event listeners (no closure per call). */
export const CALL = Symbol('fw.grpc.call');
/** An HTTP/2 stream carrying its call. */
export type CallStream = ServerHttp2Stream & { [CALL]?: Responder };

// gRPC needs no Date header: one header less to build and encode per response.
const WAIT_FOR_TRAILERS = { waitForTrailers: true, sendDate: false } as const;
const END_STREAM = { endStream: true, sendDate: false } as const;
const OK_TRAILERS: OutgoingHttpHeaders = { 'grpc-status': '0' };
export const CONTENT_TYPE = 'application/grpc+proto';
export const ACCEPT_ENCODING = 'identity,gzip';
/** The response headers of most calls (no metadata, no compression); node:http2 copies what it is given. */
const PLAIN_HEADERS: OutgoingHttpHeaders = Object.freeze({ ':status': 200, 'content-type': CONTENT_TYPE });

function sendPendingTrailers(this: CallStream): void {
  const call = this[CALL];
  this.sendTrailers(call?.trailers ?? OK_TRAILERS);
}

function writable(stream: ServerHttp2Stream): boolean {
  return !stream.destroyed && !stream.closed;
}

/** Sends the response headers (once): content type, accepted encodings, gzip when chosen, then `metadata`. */
export function sendHeaders(call: Responder, metadata: OutgoingMetadata | undefined): void {
  if (call.headersSent) return;
  call.headersSent = true;
  const stream = call.stream;
  if (!writable(stream) || stream.headersSent) return;
  const state = call[STATE];
  let headers = PLAIN_HEADERS;
  if (state !== undefined || metadata !== undefined) {
    headers = { ':status': 200, 'content-type': CONTENT_TYPE };
    // Encodings are named only to a client that negotiates them (it sent grpc-accept-encoding with gzip); absent means identity.
    if (state !== undefined) {
      headers['grpc-accept-encoding'] = ACCEPT_ENCODING;
      if (decideAdvertised(state, call.served.serialize)) headers['grpc-encoding'] = 'gzip';
    }
    addMetadataHeaders(headers, metadata);
  }
  stream.on('wantTrailers', sendPendingTrailers);
  stream.respond(headers, WAIT_FOR_TRAILERS);
}

/** `value` serialized and framed; undefined (the status already sent) when it cannot be serialized or is too large. */
export function frameMessage(call: Responder, value: unknown): Buffer | undefined {
  const served = call.served;
  // Not to be compressed (no app-wide setting, the handler did not ask for gzip): the codec frames the reply in the buffer it writes.
  if (served.serializeFramed !== undefined && served.compression === undefined && uncompressed(call[STATE])) return framedByCodec(call, served.serializeFramed, value);
  let raw: Buffer;
  try {
    raw = call.served.serialize(value);
  } catch (error) {
    sendStatus(call, GrpcStatus.INTERNAL, `Error serializing response: ${(error as Error).message}`, undefined);
    return undefined;
  }
  if (raw.byteLength > call.limits.maxSend) {
    sendStatus(call, GrpcStatus.RESOURCE_EXHAUSTED, `Sent message larger than max (${raw.byteLength} vs. ${call.limits.maxSend})`, undefined);
    return undefined;
  }
  sendHeaders(call, undefined);
  return frameResponse(raw, call[STATE], call.served.compression);
}

/** True when frameResponse would not compress, with no app-wide setting: only a handler's gzip choice, once announced, compresses. */
function uncompressed(state: StreamCompression | undefined): boolean {
  return state === undefined || state.choice !== 'gzip' || state.advertised === false;
}

function framedByCodec(call: Responder, serializeFramed: (value: unknown) => Buffer, value: unknown): Buffer | undefined {
  let framed: Buffer;
  try {
    framed = serializeFramed(value);
  } catch (error) {
    sendStatus(call, GrpcStatus.INTERNAL, `Error serializing response: ${(error as Error).message}`, undefined);
    return undefined;
  }
  if (framed.byteLength - 5 > call.limits.maxSend) {
    sendStatus(call, GrpcStatus.RESOURCE_EXHAUSTED, `Sent message larger than max (${framed.byteLength - 5} vs. ${call.limits.maxSend})`, undefined);
    return undefined;
  }
  sendHeaders(call, undefined);
  return framed;
}

/** Ends a unary call: the one message and its status in one write. */
export function sendLast(call: Responder, frame: Buffer, trailers: OutgoingMetadata | undefined): void {
  if (call.done) return;
  call.done = true;
  stopDeadline(call);
  if (trailers !== undefined) call.trailers = statusHeaders(GrpcStatus.OK, '', trailers);
  if (writable(call.stream)) call.stream.end(frame);
}

/**
 * Sends the status (once). Before any header it is a Trailers-Only
 * response. A request still being sent is not reset: the status ends the
 * call for the client (gRPC clients reset on their side; grpcio reads an
 * early RST_STREAM NO_ERROR as a failed call).
 */
export function sendStatus(call: Responder, code: number, details: string, metadata: OutgoingMetadata | undefined): void {
  if (call.done) return;
  call.done = true;
  stopDeadline(call);
  const stream = call.stream;
  if (!writable(stream)) return;
  const trailers = statusHeaders(code, details, metadata);
  if (!call.headersSent && !stream.headersSent) {
    call.headersSent = true;
    trailers[':status'] = 200;
    trailers['content-type'] = CONTENT_TYPE;
    stream.respond(trailers, END_STREAM);
  } else {
    call.trailers = trailers;
    stream.end();
  }
}

function stopDeadline(call: Responder): void {
  if (call.deadlineTimer === undefined) return;
  clearTimeout(call.deadlineTimer);
  call.deadlineTimer = undefined;
}

/** Answers a stream no call was made for (unknown method, bad encoding) with a Trailers-Only status. */
export function refuseStream(stream: ServerHttp2Stream, code: number, details: string, errorCode?: string): void {
  if (!writable(stream)) return;
  const headers = statusHeaders(code, details, undefined);
  // fw's own code for the refusal, as every transport names it (rpc/error-catalogue.ts).
  if (errorCode !== undefined) headers['x-error-code'] = errorCode;
  headers[':status'] = 200;
  headers['content-type'] = CONTENT_TYPE;
  headers['grpc-accept-encoding'] = ACCEPT_ENCODING;
  stream.respond(headers, END_STREAM);
}
