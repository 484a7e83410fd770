/**
 * Gateway errors (spec 7.3): `ServiceError` is what handlers throw, and
 * `transformError(error, protocol)` renders any error the way each protocol
 * carries it. Every transport goes through here, so the same failure has the
 * same code on HTTP, WebSocket, gRPC, UDP and TCP.
 */
import { GrpcStatus, grpcStatusName, grpcStatusToHttp, httpStatusToGrpc } from '../core/status';
import type { Protocol } from '../core/request-context';

/**
 * A failure with a stable string code, an HTTP status and optional details.
 *
 * @example
 * throw new ServiceError('USER_NOT_FOUND', `User ${id} not found`, 404, { id });
 */
export class ServiceError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly details: unknown;

  constructor(code: string, message: string, statusCode = 500, details?: unknown) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.statusCode = statusCode;
    this.details = details;
  }
}

/** HTTP rendering: status plus `{error, message, details}`. */
export interface HttpErrorOutput {
  status: number;
  body: { error: string; message: string; details?: unknown };
}

/** gRPC rendering: numeric status, message, details. */
export interface GrpcErrorOutput {
  code: GrpcStatus;
  message: string;
  details?: unknown;
}

/** WebSocket rendering. */
export interface WebSocketErrorOutput {
  type: 'error';
  error: { code: string; message: string; details?: unknown };
}

/** UDP/TCP (and any other protocol) rendering. */
export interface GenericErrorOutput {
  error: string;
  message: string;
  details?: unknown;
}

/** Any of the per-protocol renderings of `transformError`. */
export type TransformedError = HttpErrorOutput | GrpcErrorOutput | WebSocketErrorOutput | GenericErrorOutput;

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

/** The gRPC status a ServiceError maps to: its code when that names a gRPC status, else the spec's HTTP table. */
export function grpcStatusOf(error: ServiceError): GrpcStatus {
  const byName = (GrpcStatus as unknown as Record<string, number | undefined>)[error.code];
  if (typeof byName === 'number' && error.code !== 'OK') return byName;
  return httpStatusToGrpc(error.statusCode);
}

/**
 * Normalises anything thrown into a ServiceError. gRPC-style errors (numeric
 * `code`) keep their status by name; `ValidationError`s become 400; anything
 * else is an INTERNAL_ERROR whose message is not shown to clients, so internals
 * never leak.
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
  if (error instanceof Error && error.name === 'ValidationError') {
    return new ServiceError('VALIDATION_ERROR', error.message, 400);
  }
  return new ServiceError('INTERNAL_ERROR', 'Internal server error', 500);
}

/** grpc-js prefixes messages with `<code> <NAME>: `; clients want the bare message. */
function stripStatusPrefix(message: string): string {
  const m = /^\d+ [A-Z_]+: (.*)$/s.exec(message);
  return m === null ? message : (m[1] ?? message);
}

function fields(error: unknown): { code: string | undefined; message: string; statusCode: number; details: unknown } {
  if (error instanceof ServiceError) return { code: error.code, message: error.message, statusCode: error.statusCode, details: error.details };
  const e = error as { code?: unknown; message?: unknown; statusCode?: unknown; details?: unknown } | null;
  return {
    code: typeof e?.code === 'string' ? e.code : undefined,
    message: typeof e?.message === 'string' ? e.message : String(error),
    statusCode: typeof e?.statusCode === 'number' ? e.statusCode : 500,
    details: e?.details,
  };
}

/**
 * Renders an error for one protocol, exactly as spec 7.3 lays out.
 *
 * @example
 * transformError(new ServiceError('USER_NOT_FOUND', 'no such user', 404), 'grpc');
 * // → { code: 5, message: 'no such user', details: undefined }
 */
export function transformError(error: unknown, protocol: 'http'): HttpErrorOutput;
export function transformError(error: unknown, protocol: 'grpc'): GrpcErrorOutput;
export function transformError(error: unknown, protocol: 'websocket'): WebSocketErrorOutput;
export function transformError(error: unknown, protocol: Protocol | string): TransformedError;
export function transformError(error: unknown, protocol: Protocol | string): TransformedError {
  const f = fields(error);
  switch (protocol) {
    case 'http':
      return { status: f.statusCode || 500, body: { error: f.code ?? 'INTERNAL_ERROR', message: f.message, details: f.details } };
    case 'grpc':
      return {
        code: error instanceof ServiceError ? grpcStatusOf(error) : httpStatusToGrpc(f.statusCode),
        message: f.message,
        details: f.details,
      };
    case 'websocket':
      return { type: 'error', error: { code: f.code ?? 'INTERNAL_ERROR', message: f.message, details: f.details } };
    default:
      return { error: f.code ?? 'INTERNAL_ERROR', message: f.message, details: f.details };
  }
}

/** Errors the gateway itself raises, one place so their codes stay stable. */
export const GatewayErrors = {
  serviceNotFound: (service: string): ServiceError => new ServiceError('SERVICE_NOT_FOUND', `Unknown service: ${service}`, 404, { service }),
  methodNotFound: (service: string, method: string): ServiceError =>
    new ServiceError('METHOD_NOT_FOUND', `Unknown method: ${service}.${method}`, 404, { service, method }),
  badRequest: (message: string, details?: unknown): ServiceError => new ServiceError('BAD_REQUEST', message, 400, details),
  unauthenticated: (message: string): ServiceError => new ServiceError('UNAUTHENTICATED', message, 401),
  forbidden: (message: string): ServiceError => new ServiceError('PERMISSION_DENIED', message, 403),
  rateLimited: (retryAfterMs: number): ServiceError =>
    new ServiceError('RATE_LIMIT_EXCEEDED', 'Rate limit exceeded', 429, { retryAfterMs }),
  tooLarge: (what: string, limit: number): ServiceError => new ServiceError('PAYLOAD_TOO_LARGE', `${what} exceeds ${limit} bytes`, 413, { limit }),
  /** A call that arrived while `close()` drains: 503 / UNAVAILABLE, safe to retry elsewhere (the handler never ran). */
  shuttingDown: (): ServiceError => new ServiceError('UNAVAILABLE', 'The server is shutting down; retry on another instance', 503),
  unsupportedStreaming: (protocol: string, streaming: string): ServiceError =>
    new ServiceError('STREAMING_NOT_SUPPORTED', `${streaming} streaming is not available over ${protocol}`, 400, { protocol, streaming }),
} as const;
