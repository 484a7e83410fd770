/**
 * `GrpcError`, the one error a gRPC handler or middleware throws to choose the
 * status the caller sees, and the translation of anything else thrown into a
 * status: a `GrpcError` passes unchanged; every other error becomes INTERNAL
 * with a generic message so internals never leak to callers (spec 7.1).
 */
import type { ServiceError as GrpcJsServiceError } from '@grpc/grpc-js';
import { InvalidMetadataError, metadataEntries, type MetadataRecord, type MetadataValue } from '../core/call-metadata';
import { GrpcStatus, grpcStatusName } from '../core/status';
import { GENERIC_INTERNAL_MESSAGE, grpcStatusOf, ServiceErrors } from '../rpc/error-catalogue';
import { ServiceError } from '../rpc/service-error';
import { isReadableMetadata, MetadataMap, type ReadableMetadata } from './metadata-map';
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
  /** Trailing metadata sent with (or received with) the status; `-bin` keys carry bytes. */
  readonly metadata: MetadataRecord;

  constructor(code: GrpcStatus, message: string, metadata: MetadataRecord = {}) {
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
   * `ServiceError` takes the catalogue's gRPC status for its code (else the
   * HTTP→gRPC table) and keeps its message and code (`x-error-code`);
   * anything else is INTERNAL with a generic message.
   */
  static from(error: unknown): GrpcError {
    if (error instanceof GrpcError) return error;
    if (isInvalidMessageError(error)) {
      // The rich error model: google.rpc.BadRequest listing every violation.
      const code = error.direction === 'request' ? GrpcStatus.INVALID_ARGUMENT : GrpcStatus.INTERNAL;
      const details = encodeBadRequestStatus(code, error.message, error.violations);
      // `x-error-code` as the gateway sends it, so both servers name the failure alike.
      const name = error.direction === 'request' ? 'VALIDATION_ERROR' : 'OUTPUT_VALIDATION_ERROR';
      return new GrpcError(code, error.message, { [STATUS_DETAILS_KEY]: details, 'x-error-code': name });
    }
    if (error instanceof ServiceError) return new GrpcError(grpcStatusOf(error), error.message, { 'x-error-code': error.code });
    return new GrpcError(GrpcStatus.INTERNAL, GENERIC_INTERNAL_MESSAGE);
  }

  /** Rebuilds a GrpcError from a grpc-js client failure. */
  static fromServiceError(error: Partial<GrpcJsServiceError>): GrpcError {
    const code = typeof error.code === 'number' ? (Number(error.code) as GrpcStatus) : GrpcStatus.UNKNOWN;
    const message = typeof error.details === 'string' ? error.details : (error.message ?? 'Unknown error');
    return new GrpcError(code, message, isReadableMetadata(error.metadata) ? metadataToRecord(error.metadata) : {});
  }
}

export { GENERIC_INTERNAL_MESSAGE } from '../rpc/error-catalogue';

/** A status as the engines send it (grpc-js's StatusObject shape). */
export interface FwStatusObject {
  code: number;
  details: string;
  metadata: MetadataMap;
}

/**
 * The status a forced shutdown ends a still-open stream with, on either
 * engine: UNAVAILABLE (retry elsewhere), named `x-error-code: UNAVAILABLE`
 * as the gateway names it. Never a bare cut.
 */
export function drainedStatus(): FwStatusObject {
  const drained = ServiceErrors.streamDrained();
  const metadata = new MetadataMap();
  metadata.set('x-error-code', drained.code);
  return { code: GrpcStatus.UNAVAILABLE as number, details: drained.message, metadata };
}

/** The message of a request whose bytes do not decode: INVALID_ARGUMENT on either engine (the caller's fault, not the server's). */
export function undecodableRequest(error: unknown): string {
  return `Error deserializing request: ${error instanceof Error ? error.message : String(error)}`;
}

/** Receives errors that were turned into a generic INTERNAL, so they are not lost. */
export type UnexpectedErrorListener = (error: unknown, method: string) => void;

/**
 * The status object (grpc-js's shape) for a thrown value, reporting unclassified errors to
 * `onUnexpected`. `trailers` (set by the handler) go out with any status;
 * metadata that cannot be sent turns the status into INTERNAL, reported too.
 */
export function toStatusObject(error: unknown, method: string, onUnexpected: UnexpectedErrorListener, trailers?: (extra: MetadataMap) => MetadataMap): FwStatusObject {
  // A ServiceError the server raised as INTERNAL_ERROR (a handler breaking its contract) is a bug to log too.
  const classified = error instanceof GrpcError || isInvalidMessageError(error) || (error instanceof ServiceError && error.code !== 'INTERNAL_ERROR');
  if (!classified) onUnexpected(error, method);
  const grpcError = GrpcError.from(error);
  try {
    const metadata = recordToMetadata(grpcError.metadata);
    return { code: grpcError.code as number, details: grpcError.details, metadata: trailers === undefined ? metadata : trailers(metadata) };
  } catch (invalid) {
    onUnexpected(invalid, method);
    return { code: GrpcStatus.INTERNAL as number, details: GENERIC_INTERNAL_MESSAGE, metadata: new MetadataMap() };
  }
}

/** Plain record → metadata (keys lowercased); throws InvalidMetadataError on values gRPC cannot carry. */
export function recordToMetadata(record: Readonly<Record<string, unknown>> | undefined): MetadataMap {
  const metadata = new MetadataMap();
  for (const [key, value] of metadataEntries(record)) {
    try {
      metadata.add(key, typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    } catch (error) {
      throw new InvalidMetadataError(`metadata ${key}: ${(error as Error).message}`);
    }
  }
  return metadata;
}

/** Collected, already-validated values → metadata. */
export function valuesToMetadata(values: ReadonlyMap<string, readonly MetadataValue[]>): MetadataMap {
  const metadata = new MetadataMap();
  for (const [key, list] of values) for (const value of list) metadata.add(key, typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  return metadata;
}

/** Metadata (fw's or grpc-js's) → plain record: one value stays single, several become an array; `-bin` values are Buffers. */
export function metadataToRecord(metadata: ReadableMetadata): MetadataRecord {
  const out: Record<string, MetadataValue | MetadataValue[]> = {};
  const map = metadata.toJSON();
  for (const key of Object.keys(map)) {
    const values = map[key] ?? [];
    out[key] = values.length === 1 ? (values[0] as MetadataValue) : values;
  }
  return out as MetadataRecord;
}
