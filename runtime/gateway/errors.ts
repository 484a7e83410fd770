/**
 * How an error is rendered per protocol: `transformError(error, protocol)`
 * gives the shape each protocol carries (HTTP status and body, gRPC status,
 * WebSocket and frame envelopes). The errors themselves come from the
 * catalogue (rpc/error-catalogue.ts), so the same failure has the same code
 * on every transport.
 */
import type { GrpcStatus } from '../core/status';
import { httpStatusToGrpc } from '../core/status';
import type { Protocol } from '../core/request-context';
import { catalogueError, grpcStatusOf, toServiceError } from '../rpc/error-catalogue';
import { ServiceError } from '../rpc/service-error';
import { isInvalidMessageError } from '../validation/violations';

export { ServiceError } from '../rpc/service-error';
export { catalogueError, grpcStatusOf, ServiceErrors, toServiceError, ERROR_CATALOGUE, type CatalogueCode } from '../rpc/error-catalogue';

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
 * Renders an error for one protocol: HTTP status and body, gRPC status, or an envelope.
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

/**
 * The error for a request (or stream item) its method's decoder refused: the
 * decoder's own VALIDATION_ERROR with its violations, or a generic 400.
 */
export function decodeFailure(error: unknown, what = 'Request data'): ServiceError {
  if (error instanceof ServiceError || isInvalidMessageError(error)) return toServiceError(error);
  return catalogueError('BAD_REQUEST', `${what} does not match the method's message type`);
}
