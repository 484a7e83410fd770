/**
 * Errors on the Connect and gRPC-Web wires. Both use gRPC's status model:
 * a ServiceError maps to a gRPC status exactly as on the gRPC transport
 * (`grpcStatusOf`; a user's `transformError` for protocol `grpc` may
 * override code and message), then Connect names it (`not_found`, …) and
 * gives it the HTTP status of the Connect spec's table. Unknown procedures
 * are `unimplemented`, as grpc-js answers them. fw's own string code travels
 * in `x-error-code` (a header, a Connect end-stream metadata key, or a
 * gRPC-Web trailer), so clients see the same code as over HTTP/JSON.
 */
import { GrpcStatus } from '../../core/status';
import { grpcStatusOf, type ServiceError } from '../errors';

/** One error, ready for either wire. */
export interface WireError {
  readonly grpcCode: GrpcStatus;
  /** Connect's lower-snake name of `grpcCode`. */
  readonly connectCode: string;
  /** HTTP status of a Connect unary error reply. */
  readonly httpStatus: number;
  readonly message: string;
  /** fw's string code (`USER_NOT_FOUND`). */
  readonly fwCode: string;
  /** fw's details as JSON text, when they are printable ASCII (they travel in a header). */
  readonly detailsJson: string | undefined;
}

const CONNECT_CODES: Record<number, [string, number]> = {
  [GrpcStatus.CANCELLED]: ['canceled', 499],
  [GrpcStatus.UNKNOWN]: ['unknown', 500],
  [GrpcStatus.INVALID_ARGUMENT]: ['invalid_argument', 400],
  [GrpcStatus.DEADLINE_EXCEEDED]: ['deadline_exceeded', 504],
  [GrpcStatus.NOT_FOUND]: ['not_found', 404],
  [GrpcStatus.ALREADY_EXISTS]: ['already_exists', 409],
  [GrpcStatus.PERMISSION_DENIED]: ['permission_denied', 403],
  [GrpcStatus.RESOURCE_EXHAUSTED]: ['resource_exhausted', 429],
  [GrpcStatus.FAILED_PRECONDITION]: ['failed_precondition', 400],
  [GrpcStatus.ABORTED]: ['aborted', 409],
  [GrpcStatus.OUT_OF_RANGE]: ['out_of_range', 400],
  [GrpcStatus.UNIMPLEMENTED]: ['unimplemented', 501],
  [GrpcStatus.INTERNAL]: ['internal', 500],
  [GrpcStatus.UNAVAILABLE]: ['unavailable', 503],
  [GrpcStatus.DATA_LOSS]: ['data_loss', 500],
  [GrpcStatus.UNAUTHENTICATED]: ['unauthenticated', 401],
};

const PRINTABLE = /^[\x20-\x7e]*$/;

function detailsJson(details: unknown): string | undefined {
  if (details === undefined) return undefined;
  try {
    const json = JSON.stringify(details);
    return json !== undefined && PRINTABLE.test(json) && json.length <= 4096 ? json : undefined;
  } catch {
    return undefined;
  }
}

/** Renders `error`; `custom` is the user's transformError output for protocol `grpc`, if any. */
export function toWireError(error: ServiceError, custom: unknown): WireError {
  const override = custom as { code?: unknown; message?: unknown } | undefined;
  let grpcCode = error.code === 'SERVICE_NOT_FOUND' || error.code === 'METHOD_NOT_FOUND' ? GrpcStatus.UNIMPLEMENTED : grpcStatusOf(error);
  if (typeof override?.code === 'number' && CONNECT_CODES[override.code] !== undefined) grpcCode = override.code;
  const [connectCode, httpStatus] = CONNECT_CODES[grpcCode] ?? ['unknown', 500];
  const message = typeof override?.message === 'string' ? override.message : error.message;
  return { grpcCode, connectCode, httpStatus, message, fwCode: error.code, detailsJson: detailsJson(error.details) };
}

/** Connect's error JSON: `{"code": "not_found", "message": "…"}`. */
export function connectErrorJson(error: WireError): string {
  return JSON.stringify(error.message === '' ? { code: error.connectCode } : { code: error.connectCode, message: error.message });
}

/** Trailing metadata carrying fw's code (and details) beside the protocol's own status. */
export function errorMetadata(error: WireError): Record<string, string> {
  const out: Record<string, string> = { 'x-error-code': error.fwCode };
  if (error.detailsJson !== undefined) out['x-error-details'] = error.detailsJson;
  return out;
}
