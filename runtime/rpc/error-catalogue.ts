/**
 * The one catalogue of the errors fw raises itself: each code with its HTTP
 * status, its gRPC status and a line of docs (docs/gateway.md lists them all,
 * and a test keeps the two in step), plus `from(unknown)`, which normalises
 * anything a handler or middleware throws. Transports never build these
 * errors inline, so the same failure carries the same code everywhere.
 */
import { PROTOTYPE_KEY_MESSAGE } from '../core/prototype-keys';
import { GrpcStatus, grpcStatusName, grpcStatusToHttp, httpStatusToGrpc } from '../core/status';
import { isInvalidMessageError } from '../validation/violations';
import { ServiceError } from './service-error';

/** One catalogued code: how HTTP and gRPC carry it, and what it means. */
export interface CatalogueEntry {
  readonly httpStatus: number;
  readonly grpcStatus: GrpcStatus;
  readonly doc: string;
}

const entry = (httpStatus: number, grpcStatus: GrpcStatus, doc: string): CatalogueEntry => ({ httpStatus, grpcStatus, doc });

/** Every code fw raises, with its statuses and a line of docs. */
export const ERROR_CATALOGUE = {
  SERVICE_NOT_FOUND: entry(404, GrpcStatus.UNIMPLEMENTED, 'No service of that name is hosted or discovered.'),
  METHOD_NOT_FOUND: entry(404, GrpcStatus.UNIMPLEMENTED, 'The service is known but has no method of that name.'),
  NOT_FOUND: entry(404, GrpcStatus.NOT_FOUND, 'No HTTP route matches the path.'),
  METHOD_NOT_ALLOWED: entry(405, GrpcStatus.UNIMPLEMENTED, 'The path is bound, but not to this HTTP verb; `Allow` lists the verbs it takes.'),
  BAD_REQUEST: entry(400, GrpcStatus.INVALID_ARGUMENT, 'The request does not match the method\'s message type, or its body cannot be read.'),
  INVALID_ARGUMENT: entry(400, GrpcStatus.INVALID_ARGUMENT, 'JSON nested past 100 levels; on Connect and gRPC-Web also a message that does not decode, a malformed envelope or header.'),
  INVALID_JSON: entry(400, GrpcStatus.INVALID_ARGUMENT, 'The body or message is not valid JSON, or carries `__proto__`/`constructor.prototype` keys.'),
  MALFORMED_MESSAGE: entry(400, GrpcStatus.INVALID_ARGUMENT, 'A WebSocket message is not valid JSON or MessagePack, or lacks its envelope fields.'),
  MALFORMED_FRAME: entry(400, GrpcStatus.INVALID_ARGUMENT, 'A TCP or UDP frame is malformed.'),
  UNSUPPORTED_MEDIA_TYPE: entry(415, GrpcStatus.INVALID_ARGUMENT, 'A body that is not JSON on an HTTP/JSON route (Content-Type other than `application/json` or `+json`), a charset other than UTF-8, an unknown content-encoding; on Connect and gRPC-Web a content type they do not speak.'),
  STREAMING_NOT_SUPPORTED: entry(400, GrpcStatus.INVALID_ARGUMENT, 'The method\'s call kind is not available over this protocol.'),
  PAYLOAD_TOO_LARGE: entry(413, GrpcStatus.RESOURCE_EXHAUSTED, 'A request body exceeds its size limit.'),
  FRAME_TOO_LARGE: entry(413, GrpcStatus.RESOURCE_EXHAUSTED, 'A TCP or UDP frame exceeds its size limit.'),
  RESPONSE_TOO_LARGE: entry(500, GrpcStatus.RESOURCE_EXHAUSTED, 'A UDP reply exceeds `maxPacketSize`.'),
  FRAME_TIMEOUT: entry(408, GrpcStatus.DEADLINE_EXCEEDED, 'A TCP frame was not completed within `frameTimeout`.'),
  RESOURCE_EXHAUSTED: entry(429, GrpcStatus.RESOURCE_EXHAUSTED, 'Too many calls on one connection, unconsumed stream messages, partial TCP frames over `maxTotalBufferedBytes`, or a Connect/gRPC-Web message over `connect.maxMessageSize`.'),
  RATE_LIMIT_EXCEEDED: entry(429, GrpcStatus.RESOURCE_EXHAUSTED, 'A rate limit refused the call; `details.retryAfterMs` says when to retry.'),
  VALIDATION_ERROR: entry(400, GrpcStatus.INVALID_ARGUMENT, 'The request breaks its schema or `buf.validate` rules; `details` lists the violations.'),
  OUTPUT_VALIDATION_ERROR: entry(500, GrpcStatus.INTERNAL, 'The handler\'s response breaks its rules (with `validateResponses`).'),
  UNAUTHENTICATED: entry(401, GrpcStatus.UNAUTHENTICATED, 'Authentication is required and missing or invalid.'),
  PERMISSION_DENIED: entry(403, GrpcStatus.PERMISSION_DENIED, 'The authenticated caller may not call this method.'),
  DEADLINE_EXCEEDED: entry(504, GrpcStatus.DEADLINE_EXCEEDED, 'The call\'s deadline passed before it finished.'),
  CANCELLED: entry(499, GrpcStatus.CANCELLED, 'The client cancelled the call or closed its connection.'),
  UNIMPLEMENTED: entry(501, GrpcStatus.UNIMPLEMENTED, 'A compression other than gzip or identity.'),
  UNAVAILABLE: entry(503, GrpcStatus.UNAVAILABLE, 'The server is shutting down: a new call while `close()` drains, or a stream still open when `shutdownTimeout` ends; safe to retry elsewhere.'),
  INTERNAL_ERROR: entry(500, GrpcStatus.INTERNAL, 'The handler failed; the message is generic so internals never leak.'),
} as const satisfies Record<string, CatalogueEntry>;

/** A code of the catalogue. */
export type CatalogueCode = keyof typeof ERROR_CATALOGUE;

/** A ServiceError of a catalogued code, with the catalogue's HTTP status. */
export function catalogueError(code: CatalogueCode, message: string, details?: unknown): ServiceError {
  return new ServiceError(code, message, ERROR_CATALOGUE[code].httpStatus, details);
}

/** The message callers see for a failure the server did not classify. */
export const GENERIC_INTERNAL_MESSAGE = 'Internal server error';

/** Subset of a gRPC error (fw/grpc's GrpcError, grpc-js ServiceError): a numeric status. */
interface StatusLike {
  code: number;
  message?: string;
  details?: unknown;
}

function isStatusLike(error: unknown): error is StatusLike {
  const code = (error as StatusLike | null)?.code;
  return typeof code === 'number' && Number.isInteger(code) && code >= 0 && code <= 16;
}

/** grpc-js prefixes messages with `<code> <NAME>: `; clients want the bare message. */
function stripStatusPrefix(message: string): string {
  const m = /^\d+ [A-Z_]+: (.*)$/s.exec(message);
  return m === null ? message : (m[1] ?? message);
}

/**
 * Normalises anything thrown into a ServiceError. gRPC-style errors (numeric
 * `code`) keep their status by name; a refused message becomes
 * VALIDATION_ERROR (OUTPUT_VALIDATION_ERROR for a response); anything else is
 * an INTERNAL_ERROR whose message is not shown to clients.
 *
 * @example
 * const err = toServiceError(new Error('db down')); // INTERNAL_ERROR, 500
 */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  if (isStatusLike(error)) {
    const name = grpcStatusName(error.code);
    const message = typeof error.message === 'string' ? stripStatusPrefix(error.message) : name;
    // fw/grpc's GrpcError repeats its message as `details`; only carry details that add something.
    const details = typeof error.details === 'string' && stripStatusPrefix(error.details) === message ? undefined : error.details;
    return new ServiceError(name, message, grpcStatusToHttp(error.code), details);
  }
  if (isInvalidMessageError(error)) {
    // A request breaking its rules is the caller's fault; a response breaking them (validateResponses) the handler's.
    if (error.direction === 'response') return catalogueError('OUTPUT_VALIDATION_ERROR', error.message, error.violations);
    return catalogueError('VALIDATION_ERROR', error.message, error.violations);
  }
  if (error instanceof Error && error.name === 'ValidationError') return catalogueError('VALIDATION_ERROR', error.message);
  return catalogueError('INTERNAL_ERROR', GENERIC_INTERNAL_MESSAGE);
}

/**
 * The gRPC status of a ServiceError: the catalogue's for its code, else the
 * status its code names (`NOT_FOUND`), else the HTTP→gRPC table over its status.
 */
export function grpcStatusOf(error: ServiceError): GrpcStatus {
  const catalogued = (ERROR_CATALOGUE as Record<string, CatalogueEntry | undefined>)[error.code];
  if (catalogued !== undefined && catalogued.httpStatus === error.statusCode) return catalogued.grpcStatus;
  const byName = (GrpcStatus as unknown as Record<string, number | undefined>)[error.code];
  if (typeof byName === 'number' && error.code !== 'OK') return byName;
  return httpStatusToGrpc(error.statusCode);
}

/**
 * The errors fw raises, by what happened; `from(unknown)` normalises anything
 * thrown (the same as `toServiceError`).
 *
 * @example
 * throw ServiceErrors.rateLimited(1000); // RATE_LIMIT_EXCEEDED, 429 / RESOURCE_EXHAUSTED
 */
export const ServiceErrors = {
  from: toServiceError,
  serviceNotFound: (service: string): ServiceError => catalogueError('SERVICE_NOT_FOUND', `Unknown service: ${service}`, { service }),
  methodNotFound: (service: string, method: string): ServiceError => catalogueError('METHOD_NOT_FOUND', `Unknown method: ${service}.${method}`, { service, method }),
  badRequest: (message: string, details?: unknown): ServiceError => catalogueError('BAD_REQUEST', message, details),
  unauthenticated: (message: string): ServiceError => catalogueError('UNAUTHENTICATED', message),
  forbidden: (message: string): ServiceError => catalogueError('PERMISSION_DENIED', message),
  rateLimited: (retryAfterMs: number): ServiceError => catalogueError('RATE_LIMIT_EXCEEDED', 'Rate limit exceeded', { retryAfterMs }),
  tooLarge: (what: string, limit: number): ServiceError => catalogueError('PAYLOAD_TOO_LARGE', `${what} exceeds ${limit} bytes`, { limit }),
  /** A call that arrived while `close()` drains: safe to retry elsewhere (the handler never ran). */
  shuttingDown: (): ServiceError => catalogueError('UNAVAILABLE', 'The server is shutting down; retry on another instance'),
  /** A stream still open when `close()`'s `shutdownTimeout` ended. */
  streamDrained: (): ServiceError => catalogueError('UNAVAILABLE', 'The server shut down before the stream ended; retry on another instance'),
  /** Input carrying `__proto__` / `constructor.prototype` keys, refused on every transport alike. */
  prototypeKey: (): ServiceError => catalogueError('INVALID_JSON', PROTOTYPE_KEY_MESSAGE),
  unsupportedStreaming: (protocol: string, streaming: string): ServiceError =>
    catalogueError('STREAMING_NOT_SUPPORTED', `${streaming} streaming is not available over ${protocol}`, { protocol, streaming }),
  /** A streaming method whose handler returned no (async) iterable: the handler's fault, the same on every transport. */
  notIterable: (): ServiceError => catalogueError('INTERNAL_ERROR', 'A streaming handler must return an async iterable'),
  deadlineExceeded: (timeoutMs: number): ServiceError => catalogueError('DEADLINE_EXCEEDED', `Deadline of ${timeoutMs} ms exceeded`, { timeout: timeoutMs }),
  cancelled: (message = 'Cancelled by the client'): ServiceError => catalogueError('CANCELLED', message),
  methodNotAllowed: (verb: string, path: string, allow: readonly string[]): ServiceError =>
    catalogueError('METHOD_NOT_ALLOWED', `${verb} is not allowed on ${path}; allowed: ${allow.join(', ')}`, { path, method: verb, allow }),
} as const;
