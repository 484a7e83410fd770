/**
 * A call's deadline, read once per wire form: `grpc-timeout` (gRPC, and
 * HTTP/JSON, NDJSON and SSE as grpc-gateway reads it), `connect-timeout-ms`
 * (Connect; read in the Connect adapter beside its other headers) and the
 * envelope's `timeout` in milliseconds (WebSocket, TCP, UDP). Past it, the
 * call fails with DEADLINE_EXCEEDED (ServiceErrors.deadlineExceeded) and the
 * handler's signal aborts.
 */
import { parseGrpcTimeout } from '../core/grpc-timeout';
import { ServiceErrors } from './error-catalogue';

/** The longest accepted timeout: what setTimeout can hold (about 24.8 days). */
export const MAX_TIMEOUT_MS = 0x7fffffff;

/**
 * Milliseconds of an envelope's `timeout` field; undefined when absent.
 * Throws BAD_REQUEST when it is not a whole number from 1 to MAX_TIMEOUT_MS.
 */
export function envelopeTimeout(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw ServiceErrors.badRequest(`"timeout" must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  return value;
}

/** Milliseconds of a `grpc-timeout` header value (whole ms, at least 1); undefined when absent or malformed. */
export function grpcTimeoutHeader(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = parseGrpcTimeout(value);
  return ms === undefined ? undefined : Math.min(Math.max(1, Math.ceil(ms)), MAX_TIMEOUT_MS);
}

/** A call's deadline: when it passes (epoch ms) and the timeout it came from (for the error's message). */
export interface CallDeadline {
  readonly at: number;
  readonly ms: number;
}

/** The deadline `ms` from now. */
export function deadlineIn(ms: number): CallDeadline {
  return { at: Date.now() + ms, ms };
}
