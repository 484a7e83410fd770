/**
 * The one error type of the browser client: a call fails with an RpcError
 * whose `code` is the gateway's code (`NOT_FOUND`, `USER_NOT_FOUND`,
 * `VALIDATION_ERROR`, …) or, for failures the client sees itself, a gRPC
 * status name: `CANCELLED`, `DEADLINE_EXCEEDED`, `UNAVAILABLE`,
 * `UNIMPLEMENTED`, `INTERNAL`.
 */

/** A failed call: the code, message and details the server (or the client) gave. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  /** The gateway's error code, or a gRPC status name for client-side failures. */
  readonly code: string;
  /** What the server put in `error.details` (validation violations, ids, …). */
  readonly details: unknown;
  /** The call's trace id, when the server sent one. */
  readonly traceId: string | undefined;

  constructor(code: string, message: string, details?: unknown, traceId?: string) {
    super(message);
    this.code = code;
    this.details = details;
    this.traceId = traceId;
  }
}

/** The RpcError of an `{code, message, details}` object from the wire; anything else is INTERNAL. */
export function wireError(error: unknown, traceId?: unknown): RpcError {
  const e = (error !== null && typeof error === 'object' ? error : {}) as { code?: unknown; message?: unknown; details?: unknown };
  return new RpcError(
    typeof e.code === 'string' ? e.code : 'INTERNAL',
    typeof e.message === 'string' ? e.message : 'The server sent a malformed error',
    e.details,
    typeof traceId === 'string' ? traceId : undefined,
  );
}
