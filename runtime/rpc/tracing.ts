/**
 * Trace-id correlation shared by every transport, read here and nowhere else:
 * a W3C `traceparent` (header, gRPC metadata or an envelope's field), or an
 * incoming id (the configured correlation header, default `X-Trace-ID`, or an
 * envelope's `traceId` field), else a fresh 32-hex one, so the id can be echoed on the reply and carried in spans/logs.
 * HTTP-carried calls read it through {@link HeaderTracing}, envelope calls
 * (WebSocket, TCP, UDP) through {@link envelopeTracing}; the gateway's gRPC
 * adapter and `server.grpc()` read their metadata with {@link tracingFrom}.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { TracingInfo } from '../core/request-context';
import { parseTraceparent } from '../core/traceparent';

/** The correlation header when none is configured (monitoring's `correlationHeader` default, as gRPC metadata spells it: lower case). */
export const DEFAULT_CORRELATION_HEADER = 'x-trace-id';

/** Accepted incoming ids: 1–128 visible characters from a safe set (no header injection). */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// 4096 ids (64 KiB) per refill: the CSPRNG call is then a negligible share of each id.
const POOL_IDS = 4096;
// Hex text for 64 ids at a time: slicing a string is far cheaper than one Buffer#toString per id.
// The slices share their 2 KiB chunk, so it lives as long as any of its 64 ids.
const HEX_CHUNK_IDS = 64;
let pool = Buffer.alloc(0);
let poolOffset = 0;
let hex = '';
let hexOffset = 0;

/** A fresh random 32-hex trace id (16 bytes from a pooled CSPRNG buffer: one randomBytes call per 4096 ids). */
export function newTraceId(): string {
  if (hexOffset >= hex.length) {
    if (poolOffset >= pool.length) {
      pool = randomBytes(16 * POOL_IDS);
      poolOffset = 0;
    }
    hex = pool.toString('hex', poolOffset, poolOffset + 16 * HEX_CHUNK_IDS);
    poolOffset += 16 * HEX_CHUNK_IDS;
    hexOffset = 0;
  }
  const id = hex.slice(hexOffset, hexOffset + 32);
  hexOffset += 32;
  return id;
}

/**
 * Builds TracingInfo from an explicit id and/or a `traceparent` value.
 *
 * @example
 * tracingFrom(undefined, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01').traceId;
 * // '4bf92f3577b34da6a3ce929d0e0e4736'
 */
export function tracingFrom(traceId: unknown, traceparent?: unknown): TracingInfo {
  const hasId = typeof traceId === 'string' && SAFE_ID.test(traceId);
  const parent = parseTraceparent(traceparent);
  if (parent !== undefined) {
    // A correlation id naming the same trace (a forwarded call sends both) keeps its spelling; a different one loses to the W3C parent.
    const id = hasId && traceId.toLowerCase() === parent.traceId ? traceId : parent.traceId;
    return { traceId: id, spanId: undefined, parentSpanId: parent.parentSpanId, traceparent: traceparent as string };
  }
  if (hasId) return { traceId, spanId: undefined, parentSpanId: undefined, traceparent: undefined };
  return { traceId: newTraceId(), spanId: undefined, parentSpanId: undefined, traceparent: undefined };
}

/** The trace context of a request envelope (`traceId`, `traceparent` fields). */
export function envelopeTracing(message: { readonly traceId?: unknown; readonly traceparent?: unknown }): TracingInfo {
  return tracingFrom(message.traceId, message.traceparent);
}

/**
 * Reads a call's trace context from HTTP headers: the correlation header
 * named by `headerName()` (read per call: monitoring may be configured
 * later), else `traceparent`. The lower-cased name is cached per name.
 */
export class HeaderTracing {
  readonly #headerName: () => string;
  #name = '';
  #key = '';

  constructor(headerName: () => string) {
    this.#headerName = headerName;
  }

  read(headers: IncomingHttpHeaders): TracingInfo {
    const name = this.#headerName();
    if (name !== this.#name) {
      this.#name = name;
      this.#key = name.toLowerCase();
    }
    return tracingFrom(headers[this.#key], headers.traceparent);
  }
}
