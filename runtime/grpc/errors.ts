/**
 * `GrpcError`, the one error a gRPC handler or middleware throws to choose the
 * status the caller sees, and the translation of anything else thrown into a
 * status: a `GrpcError` passes unchanged; every other error becomes INTERNAL
 * with a generic message so internals never leak to callers (spec 7.1).
 */
import { Metadata, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { GrpcStatus, grpcStatusName, httpStatusToGrpc } from '../core/status';
import { encodeBadRequestStatus, STATUS_DETAILS_KEY } from '../validation/status-details';
import { isInvalidMessageError } from '../validation/violations';

/**
 * A failure with a gRPC status code (spec 7.1). Thrown by handlers and
 * middleware on the server; raised by `createGrpcClient` and
 * `createGrpcTestClient` on the caller's side.
 *
 * @example
 * import { GrpcError, GrpcStatus } from 'fw/grpc';
 * throw new GrpcError(GrpcStatus.NOT_FOUND, 'User not found');
 */
export class GrpcError extends Error {
  override readonly name = 'GrpcError';
  /** The gRPC status code. */
  readonly code: GrpcStatus;
  /** Extra detail carried to the caller as the `grpc-status-details` text; defaults to `message`. */
  readonly details: string;
  /** Trailing metadata sent with (or received with) the status. */
  readonly metadata: Record<string, string | string[]>;

  constructor(code: GrpcStatus, message: string, metadata: Record<string, string | string[]> = {}) {
    super(message);
    this.code = code;
    this.details = message;
    this.metadata = metadata;
  }

  /** `'NOT_FOUND'` for `GrpcStatus.NOT_FOUND`. */
  get codeName(): string {
    return grpcStatusName(this.code);
  }

  /**
   * The status a client sees for `error`: a GrpcError keeps its code; a
   * gateway `ServiceError` (spec 7.3) maps its `statusCode` through the one
   * HTTP→gRPC table and keeps its message; anything else is INTERNAL with a
   * generic message.
   */
  static from(error: unknown): GrpcError {
    if (error instanceof GrpcError) return error;
    if (isInvalidMessageError(error)) {
      // The rich error model: google.rpc.BadRequest listing every violation (base64 here, bytes on the wire).
      const code = error.direction === 'request' ? GrpcStatus.INVALID_ARGUMENT : GrpcStatus.INTERNAL;
      const details = encodeBadRequestStatus(code, error.message, error.violations).toString('base64');
      // `x-error-code` as the gateway sends it, so both servers name the failure alike.
      const name = error.direction === 'request' ? 'VALIDATION_ERROR' : 'OUTPUT_VALIDATION_ERROR';
      return new GrpcError(code, error.message, { [STATUS_DETAILS_KEY]: details, 'x-error-code': name });
    }
    if (isServiceError(error)) return new GrpcError(httpStatusToGrpc(error.statusCode), error.message);
    return new GrpcError(GrpcStatus.INTERNAL, GENERIC_INTERNAL_MESSAGE);
  }

  /** Rebuilds a GrpcError from a grpc-js client failure. */
  static fromServiceError(error: Partial<ServiceError>): GrpcError {
    const code = typeof error.code === 'number' ? (Number(error.code) as GrpcStatus) : GrpcStatus.UNKNOWN;
    const message = typeof error.details === 'string' ? error.details : (error.message ?? 'Unknown error');
    return new GrpcError(code, message, error.metadata instanceof Metadata ? metadataToRecord(error.metadata) : {});
  }
}

/** Spec 7.3's ServiceError, recognised by shape so gRPC does not depend on the gateway. */
function isServiceError(error: unknown): error is { name: 'ServiceError'; message: string; statusCode: number } {
  return error instanceof Error && error.name === 'ServiceError' && typeof (error as { statusCode?: unknown }).statusCode === 'number';
}

/** The message callers see for a failure the server did not classify. */
export const GENERIC_INTERNAL_MESSAGE = 'Internal server error';

/** Receives errors that were turned into a generic INTERNAL, so they are not lost. */
export type UnexpectedErrorListener = (error: unknown, method: string) => void;

/** grpc-js's status object for a thrown value, reporting unclassified errors to `onUnexpected`. */
export function toStatusObject(error: unknown, method: string, onUnexpected: UnexpectedErrorListener): Partial<StatusObject> {
  if (!(error instanceof GrpcError) && !isServiceError(error) && !isInvalidMessageError(error)) onUnexpected(error, method);
  const grpcError = GrpcError.from(error);
  return { code: grpcError.code as number, details: grpcError.details, metadata: recordToMetadata(grpcError.metadata) };
}

/** Plain record → grpc-js Metadata (keys lowercased by grpc-js); binary (`-bin`) values are base64 text, as metadataToRecord gives them. */
export function recordToMetadata(record: Record<string, string | string[]> | undefined): Metadata {
  const metadata = new Metadata();
  if (record === undefined) return metadata;
  for (const key of Object.keys(record)) {
    const value = record[key];
    const binary = key.toLowerCase().endsWith('-bin');
    const as = (v: string): string | Buffer => (binary ? Buffer.from(v, 'base64') : v);
    if (Array.isArray(value)) for (const item of value) metadata.add(key, as(item));
    else if (value !== undefined) metadata.set(key, as(value));
  }
  return metadata;
}

/** grpc-js Metadata → plain record; binary (`-bin`) values become base64 text. */
export function metadataToRecord(metadata: Metadata): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const map = metadata.toJSON() as Record<string, (string | Buffer)[]>;
  for (const key of Object.keys(map)) {
    const values = (map[key] ?? []).map((v) => (typeof v === 'string' ? v : v.toString('base64')));
    out[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return out;
}
