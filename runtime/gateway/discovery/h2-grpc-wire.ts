/**
 * The gRPC-over-HTTP/2 wire as the lean forwarding client (h2-unary-channel.ts,
 * h2-stream-call.ts) reads and writes it: length-prefixed messages, the
 * status in trailers (or trailers-only headers), HTTP and reset codes mapped
 * to statuses as grpc-js maps them, errors shaped like grpc-js's.
 */
import * as http2 from 'node:http2';
import { GrpcStatus as GrpcCode } from '../../core/status';
import { PrefixedFrameReader } from '../../core/prefixed-frame-reader';

/** grpc-js's default largest message a client accepts. */
export const MAX_RESPONSE_BYTES = 4 << 20;

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM, NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_INADEQUATE_SECURITY } = http2.constants;

/** A failed call's trailers as the forwarders read them (what grpc-js's Metadata offers them), without grpc-js. */
export class TrailerMetadata {
  readonly #headers: http2.IncomingHttpHeaders;
  constructor(headers: http2.IncomingHttpHeaders = {}) {
    this.#headers = headers;
  }
  toHttp2Headers(): http2.OutgoingHttpHeaders {
    return { ...this.#headers };
  }
  /** The values of `key` as grpc-js's Metadata.get gives them: strings, or Buffers for `-bin` keys (comma-separated base64 there). */
  get(key: string): (string | Buffer)[] {
    const name = key.toLowerCase();
    const raw = this.#headers[name];
    if (raw === undefined) return [];
    const values = Array.isArray(raw) ? raw : [raw];
    if (!name.endsWith('-bin')) return values;
    return values.flatMap((value) => value.split(',')).map((value) => Buffer.from(value.trim(), 'base64'));
  }
}

/** The error a failed call ends with: shaped like grpc-js's ServiceError. */
export interface H2CallError extends Error {
  code: number;
  details: string;
  metadata: TrailerMetadata;
  /** The status trailers as received (for passing them back unchanged); undefined when the status is fw's own. */
  trailers?: http2.IncomingHttpHeaders;
}

const CODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(GrpcCode).filter(([, v]) => typeof v === 'number').map(([k, v]) => [v, k]));

/** Builds an error with grpc-js's message format (`14 UNAVAILABLE: details`). */
export function callError(code: number, details: string, metadata = new TrailerMetadata()): H2CallError {
  const error = new Error(`${code} ${CODE_NAMES[code] ?? 'UNKNOWN'}: ${details}`) as H2CallError;
  error.code = code;
  error.details = details;
  error.metadata = metadata;
  return error;
}

/** gRPC's mapping of a non-200 HTTP status to a status code (as grpc-js does). */
export function codeOfHttpStatus(httpStatus: number): number {
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
export function endedWithoutStatus(rstCode: number, connectionGone: boolean, answered: boolean, streamError: Error | undefined): H2CallError {
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
export function codeOf(headers: http2.IncomingHttpHeaders): number {
  const raw = headers['grpc-status'];
  if (raw === '0') return GrpcCode.OK;
  const code = raw === undefined ? GrpcCode.UNKNOWN : Number(raw);
  return Number.isInteger(code) && code >= 0 && code <= 16 ? code : GrpcCode.UNKNOWN;
}

/** The error for a non-OK status: message and the remaining trailers as Metadata (built only for failures). */
export function statusError(code: number, headers: http2.IncomingHttpHeaders): H2CallError {
  const raw = headers['grpc-status'];
  const message = headers['grpc-message'];
  const details = typeof message === 'string' ? decodeMessage(message) : raw === undefined ? 'No status received' : '';
  const rest: http2.IncomingHttpHeaders = {};
  for (const key of Object.keys(headers)) {
    if (key[0] === ':' || key === 'grpc-status' || key === 'grpc-message' || key === 'content-type') continue;
    rest[key] = headers[key];
  }
  const error = callError(code, details, new TrailerMetadata(rest));
  error.trailers = headers;
  return error;
}

/** The response body's one uncompressed message, or undefined when the body is not exactly one. */
export function onlyMessage(body: Buffer): Buffer | undefined {
  return body.length >= 5 && body[0] === 0 && body.readUInt32BE(1) === body.length - 5 ? body.subarray(5) : undefined;
}

/** Frames one message: flag byte 0 (uncompressed), 4-byte big-endian length, bytes. */
export function frame(message: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

/**
 * Cuts a response body, arriving in chunks of any size, into its messages
 * (held in bounded blocks, like every request reader). `push` throws a call
 * error for a compressed message (the forwarder never asks for compression)
 * or one over `maxBytes`.
 */
export class MessageReader {
  readonly #frames: PrefixedFrameReader;
  #out: Buffer[] = [];
  readonly #sink = (_header: Buffer, _offset: number, message: Buffer): void => {
    this.#out.push(message);
  };

  constructor(maxBytes = MAX_RESPONSE_BYTES) {
    this.#frames = new PrefixedFrameReader(5, (bytes, offset) => {
      if (bytes[offset] !== 0) throw callError(GrpcCode.INTERNAL, 'Compressed response not supported');
      const size = bytes.readUInt32BE(offset + 1);
      if (size > maxBytes) throw callError(GrpcCode.RESOURCE_EXHAUSTED, `Received message larger than max (${size} vs ${maxBytes})`);
      return size;
    });
  }

  /** The messages `chunk` completes, in order. */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = (this.#out = []);
    this.#frames.push(chunk, this.#sink);
    return out;
  }

  /** True when a message was cut off by the end of the body. */
  get partial(): boolean {
    return this.#frames.partial;
  }
}

/**
 * Request metadata a proxy does not pass on: HTTP/2 and hop-by-hop headers,
 * the gRPC protocol's own (the deadline is recomputed, the forwarding leg is
 * uncompressed) and the trace context, which the forwarder sets itself.
 */
const NOT_FORWARDED = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'host', 'content-length', 'content-type',
  'grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding', 'accept-encoding', 'user-agent', 'x-trace-id', 'traceparent',
]);

/** True when request metadata `key` travels on to the instance. */
export function forwardsRequestKey(key: string): boolean {
  return key[0] !== ':' && !NOT_FORWARDED.has(key);
}

/** Response metadata the gateway writes itself (or HTTP/2 does): not copied from the instance's reply. */
const NOT_RETURNED = new Set(['content-type', 'grpc-status', 'grpc-message', 'grpc-encoding', 'grpc-accept-encoding', 'content-length', 'date', 'x-trace-id']);

/** True when response header or trailer `key` from the instance goes back to the caller. */
export function returnsResponseKey(key: string): boolean {
  return key[0] !== ':' && !NOT_RETURNED.has(key);
}
