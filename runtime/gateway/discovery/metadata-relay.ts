/**
 * Metadata across a forwarded call. A gRPC caller's request metadata travels
 * on to the instance whole, less what a proxy must not pass (HTTP/2 and
 * hop-by-hop headers, the gRPC protocol's own: h2-grpc-wire.ts), and the
 * instance's response headers and trailers (custom metadata,
 * `grpc-status-details-bin`) come back to it unchanged through
 * `context.call`. Callers over other protocols send only the trace id and
 * `forwarding.forwardHeaders`, and get no instance metadata back: their
 * HTTP headers are not gRPC metadata.
 */
import type { IncomingHttpHeaders } from 'node:http2';
import { metadataText } from '../../core/call-metadata';
import type { RequestContext } from '../../core/request-context';
import { forwardsRequestKey, returnsResponseKey } from './h2-grpc-wire';
import type { H2RequestMetadata } from './h2-unary-channel';

/** The request headers of a forwarded call: trace id and traceparent, then the caller's metadata (gRPC) or `forwardHeaders` (other protocols). */
export function forwardedMetadata(context: RequestContext, forwardHeaders: readonly string[]): H2RequestMetadata {
  const out: H2RequestMetadata = {};
  const tracing = context.tracing;
  if (tracing.traceId !== '') out['x-trace-id'] = tracing.traceId;
  // W3C trace context: the call's own span when tracing is on, else the client's traceparent passed through.
  if (tracing.traceparent !== undefined) out.traceparent = tracing.traceparent;
  if (context.protocol === 'grpc') {
    const record = context.call.requestMetadata.toRecord();
    for (const key of Object.keys(record)) {
      if (!forwardsRequestKey(key)) continue;
      const values = (record[key] ?? []).map(metadataText);
      out[key] = values.length === 1 ? (values[0] as string) : values;
    }
    return out;
  }
  for (const h of forwardHeaders) {
    const v = context.headers[h];
    if (v !== undefined) out[h] = v;
  }
  return out;
}

/** Copies the instance's response headers to a gRPC caller's response (before its first message goes out). */
export function relayHeaders(context: RequestContext, headers: IncomingHttpHeaders | undefined): void {
  if (headers === undefined || context.protocol !== 'grpc' || context.call.headerSent) return;
  relay(headers, (key, value) => context.call.setHeader(key, value as never));
}

/** Copies the instance's trailers (on success or failure) to a gRPC caller's status. */
export function relayTrailers(context: RequestContext, trailers: IncomingHttpHeaders | undefined): void {
  if (trailers === undefined || context.protocol !== 'grpc') return;
  relay(trailers, (key, value) => context.call.setTrailer(key, value as never));
}

function relay(from: IncomingHttpHeaders, set: (key: string, value: string | Uint8Array) => void): void {
  for (const key of Object.keys(from)) {
    if (!returnsResponseKey(key)) continue;
    const raw = from[key];
    if (raw === undefined) continue;
    const binary = key.endsWith('-bin');
    // HTTP/2 joins repeated headers with commas; base64 has none, so `-bin` values split back (as grpc-js does), text stays whole.
    const texts = Array.isArray(raw) ? raw : binary ? String(raw).split(',') : [String(raw)];
    for (const text of texts) {
      try {
        set(key, binary ? Buffer.from(text.trim(), 'base64') : text);
      } catch {
        // Not valid gRPC metadata (a header only HTTP allows): it stays behind rather than failing the call.
      }
    }
  }
}
