/**
 * RequestContext for a gRPC call: client from the peer string, metadata
 * flattened into headers (first value of each key) and kept whole in
 * `metadata.grpc`.
 */
import type { ReadableMetadata } from '../../grpc/metadata-map';
import type { Cancellation } from '../../core/cancellation';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import { MapIncomingMetadata, type MetadataValue } from '../../core/call-metadata';
import { createContext } from '../gateway-core';

/** The last peer parsed: calls on one connection share their peer string, so most calls skip the regex. */
let lastPeer = '';
let lastParsed: { readonly address: string; readonly port: number } = { address: '', port: 0 };

/** `ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000` → address and port. */
export function parsePeer(peer: string): { readonly address: string; readonly port: number } {
  if (peer === lastPeer) return lastParsed;
  const m = /^(?:ipv[46]:)?\[?([^\]]*?)\]?:(\d+)$/.exec(peer);
  const parsed = m === null ? { address: peer, port: 0 } : { address: m[1] ?? peer, port: Number(m[2]) };
  lastPeer = peer;
  lastParsed = parsed;
  return parsed;
}

/**
 * Builds the RequestContext of one gRPC call. `deadline` (epoch ms, the
 * caller's `grpc-timeout`) lands in `context.metadata.deadline`, where the
 * discovery forwarder reads it to pass it on.
 */
export function grpcContext(
  peer: string,
  metadata: ReadableMetadata,
  path: string,
  tracing: TracingInfo,
  signal: AbortSignal | (() => AbortSignal),
  compressed: () => boolean,
  deadline?: number,
  cancellation?: Cancellation,
): RequestContext {
  const { address, port } = parsePeer(peer);
  const headers: Record<string, string> = {};
  const map = metadata.getMap();
  for (const k of Object.keys(map)) {
    const v = map[k];
    headers[k] = typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('base64') : String(v);
  }
  return createContext(
    'grpc',
    { id: peer, address, port, userAgent: headers['user-agent'], version: '2.0' },
    headers,
    deadline === undefined ? { path, grpc: metadata } : { path, grpc: metadata, deadline },
    tracing,
    signal,
    () => new MapIncomingMetadata(new Map(Object.entries(metadata.toJSON()))),
    compressed,
    cancellation,
  );
}
