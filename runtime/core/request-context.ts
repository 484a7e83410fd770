/**
 * Per-call context shared by every transport and by generated handlers
 * (spec 2.3 `RequestContext`). The gRPC server, the in-process test client
 * and every gateway transport fill the same object.
 */

import type { CallMetadataControls } from './call-metadata';

export type Protocol = 'http' | 'websocket' | 'grpc' | 'udp' | 'tcp';

export interface ClientInfo {
  id: string;
  address: string;
  port: number;
  userAgent?: string;
  version?: string;
}

export interface AuthenticationInfo {
  /** Provider that accepted the credentials: `jwt`, `apikey`, `oauth`, … */
  provider: string;
  /** The verified principal (JWT claims, API-key owner, …). */
  user: Record<string, unknown>;
  token?: string;
}

export interface TracingInfo {
  traceId: string;
  spanId?: string;
  parentSpanId?: string;
  /** W3C `traceparent` to pass on with calls this one makes: the client's, or the call's own span's once tracing started it. */
  traceparent?: string;
}

export interface RequestContext {
  protocol: Protocol;
  client: ClientInfo;
  headers: Record<string, string>;
  metadata: Record<string, unknown>;
  authentication?: AuthenticationInfo;
  tracing: TracingInfo;
  /** Aborted when the caller cancels or its deadline passes. */
  signal: AbortSignal;
  /** Request metadata (`-bin` as bytes), response headers and trailers, per-call compression (docs/grpc.md). */
  call: CallMetadataControls;
}
