/**
 * A call's deadline, read in this one file for every wire form:
 * - `grpc-timeout`: gRPC, gRPC-Web, and HTTP/JSON, NDJSON and SSE (as
 *   grpc-gateway reads it);
 * - `connect-timeout-ms`: Connect;
 * - the envelope's `timeout` in milliseconds: WebSocket, TCP, UDP.
 * Each transport asks here for its `CallDeadline`; past it, the call fails
 * with DEADLINE_EXCEEDED (ServiceErrors.deadlineExceeded) and the handler's
 * signal aborts.
 */
import { parseGrpcTimeout } from '../core/grpc-timeout';
import { catalogueError, ServiceErrors } from './error-catalogue';
import type { ServiceError } from './service-error';

/** The longest accepted timeout: what setTimeout can hold (about 24.8 days). */
export const MAX_TIMEOUT_MS = 0x7fffffff;

/** A call's deadline: when it passes (epoch ms) and the timeout it came from (for the error's message and timer). */
export interface CallDeadline {
  readonly at: number;
  readonly ms: number;
}

/** Request headers as node:http and node:http2 give them. */
type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The deadline `ms` from now. */
export function deadlineIn(ms: number): CallDeadline {
  return { at: Date.now() + ms, ms };
}

/** Whole milliseconds, at least 1 (sub-millisecond timeouts round up), at most MAX_TIMEOUT_MS. */
function wholeMs(ms: number): number {
  return Math.min(Math.max(1, Math.ceil(ms)), MAX_TIMEOUT_MS);
}

function badTimeout(name: string, value: string): ServiceError {
  return catalogueError('INVALID_ARGUMENT', `Invalid ${name} header: ${JSON.stringify(value.slice(0, 32))}`);
}

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

/** WebSocket, TCP and UDP: the deadline of a request envelope's `timeout` (ms); throws BAD_REQUEST when malformed. */
export function envelopeDeadline(value: unknown): CallDeadline | undefined {
  const ms = envelopeTimeout(value);
  return ms === undefined ? undefined : deadlineIn(ms);
}

/** Milliseconds of a `grpc-timeout` header value (whole ms, at least 1); undefined when absent or malformed. */
export function grpcTimeoutHeader(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = parseGrpcTimeout(value);
  return ms === undefined ? undefined : wholeMs(ms);
}

/**
 * HTTP/JSON, NDJSON and SSE: the deadline of a `grpc-timeout` header, read as
 * grpc-gateway reads it (a malformed value is ignored, as there).
 */
export function httpDeadline(headers: Headers): CallDeadline | undefined {
  const ms = grpcTimeoutHeader(headers['grpc-timeout']);
  return ms === undefined ? undefined : deadlineIn(ms);
}

const CONNECT_TIMEOUT = /^\d{1,10}$/;

/** Connect: the deadline of `connect-timeout-ms`; throws INVALID_ARGUMENT on a malformed value. */
export function connectDeadline(headers: Headers): CallDeadline | undefined {
  const value = headers['connect-timeout-ms'];
  if (typeof value !== 'string') return undefined;
  if (!CONNECT_TIMEOUT.test(value)) throw badTimeout('connect-timeout-ms', value);
  return deadlineIn(wholeMs(Number(value)));
}

/** gRPC-Web: the deadline of `grpc-timeout`; throws INVALID_ARGUMENT on a malformed value (gRPC clients never send one). */
export function grpcWebDeadline(headers: Headers): CallDeadline | undefined {
  const value = headers['grpc-timeout'];
  if (typeof value !== 'string') return undefined;
  const ms = parseGrpcTimeout(value);
  if (ms === undefined) throw badTimeout('grpc-timeout', value);
  return deadlineIn(wholeMs(ms));
}
