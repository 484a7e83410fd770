/**
 * The one catalogue of status codes: gRPC's numeric codes, and the single
 * mapping between HTTP statuses and them (spec 7.3). Every transport translates
 * through here, so the same failure carries the same code everywhere.
 */

/** gRPC status codes (the numbers are fixed by the gRPC protocol). */
export enum GrpcStatus {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

/** HTTP status → gRPC status, exactly the table of spec 7.3; anything else is INTERNAL. */
export function httpStatusToGrpc(httpStatus: number): GrpcStatus {
  switch (httpStatus) {
    case 400: return GrpcStatus.INVALID_ARGUMENT;
    case 401: return GrpcStatus.UNAUTHENTICATED;
    case 403: return GrpcStatus.PERMISSION_DENIED;
    case 404: return GrpcStatus.NOT_FOUND;
    case 409: return GrpcStatus.ALREADY_EXISTS;
    case 429: return GrpcStatus.RESOURCE_EXHAUSTED;
    default: return GrpcStatus.INTERNAL;
  }
}

/**
 * gRPC status → HTTP status, the inverse used when a gRPC failure must be shown
 * over HTTP (the mapping grpc-gateway users expect for codes the spec omits).
 */
export function grpcStatusToHttp(code: GrpcStatus): number {
  switch (code) {
    case GrpcStatus.OK: return 200;
    case GrpcStatus.CANCELLED: return 499;
    case GrpcStatus.INVALID_ARGUMENT: return 400;
    case GrpcStatus.FAILED_PRECONDITION: return 400;
    case GrpcStatus.OUT_OF_RANGE: return 400;
    case GrpcStatus.DEADLINE_EXCEEDED: return 504;
    case GrpcStatus.NOT_FOUND: return 404;
    case GrpcStatus.ALREADY_EXISTS: return 409;
    case GrpcStatus.ABORTED: return 409;
    case GrpcStatus.PERMISSION_DENIED: return 403;
    case GrpcStatus.UNAUTHENTICATED: return 401;
    case GrpcStatus.RESOURCE_EXHAUSTED: return 429;
    case GrpcStatus.UNIMPLEMENTED: return 501;
    case GrpcStatus.UNAVAILABLE: return 503;
    default: return 500;
  }
}

/** `GrpcStatus.NOT_FOUND` → `'NOT_FOUND'`. */
export function grpcStatusName(code: GrpcStatus): string {
  return GrpcStatus[code] ?? 'UNKNOWN';
}
