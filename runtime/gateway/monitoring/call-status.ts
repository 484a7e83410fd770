/**
 * The `status` label of a finished call: `OK`, or the failure's own code —
 * a ServiceError's string code (`USER_NOT_FOUND`), a gRPC error's numeric code
 * by name (`NOT_FOUND`), a refused message's `VALIDATION_ERROR`, otherwise
 * `INTERNAL`. Also the HTTP status a failure
 * is shown with, for the `http.status_codes` metric.
 */
import { GrpcStatus, grpcStatusName, grpcStatusToHttp } from '../../core/status';
import { grpcStatusOf, toServiceError } from '../../rpc/error-catalogue';

/** Label of a call that ended because its consumer stopped listening. */
export const CANCELLED_STATUS = 'CANCELLED';

/** Status label of a failure. */
export function statusOfError(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    // The catalogue's INTERNAL_ERROR (a handler breaking its contract) counts as the handler failures do.
    if (typeof code === 'string' && code !== '') return code === 'INTERNAL_ERROR' ? 'INTERNAL' : code;
    if (typeof code === 'number' && GrpcStatus[code] !== undefined) return grpcStatusName(code);
  }
  // Normalised as the caller sees it: a refused message is VALIDATION_ERROR, not a server fault.
  const shown = toServiceError(error);
  return shown.code === 'INTERNAL_ERROR' ? 'INTERNAL' : shown.code;
}

/** HTTP status a failure is answered with: its `statusCode`, the mapped gRPC code, else 500. */
export function httpStatusOfError(error: unknown): number {
  if (typeof error === 'object' && error !== null) {
    const statusCode = (error as { statusCode?: unknown }).statusCode;
    if (typeof statusCode === 'number' && statusCode >= 100 && statusCode < 600) return statusCode;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'number' && GrpcStatus[code] !== undefined) return grpcStatusToHttp(code);
  }
  return toServiceError(error).statusCode;
}

/** The gRPC status name a failure is answered with on gRPC and Connect (`NOT_FOUND` for a 404 ServiceError). */
export function grpcStatusNameOfError(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'number' && GrpcStatus[code] !== undefined) return grpcStatusName(code);
  }
  return grpcStatusName(grpcStatusOf(toServiceError(error)));
}
