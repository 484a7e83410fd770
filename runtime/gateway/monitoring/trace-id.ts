/**
 * Turns whatever trace id a client sent (X-Trace-ID, traceparent, an envelope
 * `traceId`, gRPC metadata) into an OpenTelemetry trace id: 32 lowercase hex
 * digits, not all zero. W3C and OTel ids pass unchanged, 64-bit Zipkin/B3 ids
 * are zero-padded as Zipkin does, UUIDs lose their dashes; any other string is
 * hashed, so the same correlation id always lands in the same trace.
 */
import { createHash } from 'node:crypto';

const HEX32 = /^[0-9a-f]{32}$/i;
const HEX16 = /^[0-9a-f]{16}$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/i;
const ZERO32 = '0'.repeat(32);
const ZERO16 = '0'.repeat(16);

/** OTel trace id for `raw`; undefined for an empty id. */
export function toOtelTraceId(raw: string): string | undefined {
  if (raw === '') return undefined;
  if (HEX32.test(raw)) return raw === ZERO32 ? undefined : raw.toLowerCase();
  if (HEX16.test(raw)) return raw === ZERO16 ? undefined : ZERO16 + raw.toLowerCase();
  if (UUID.test(raw)) return toOtelTraceId(raw.replace(/-/g, ''));
  const tp = TRACEPARENT.exec(raw);
  if (tp !== null) return toOtelTraceId(tp[1] as string);
  return createHash('sha256').update(raw).digest('hex').slice(0, 32);
}

/** The parent span id carried by a traceparent-shaped id, or `spanId` when it is a valid 16-hex id. */
export function toOtelSpanId(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const tp = TRACEPARENT.exec(raw);
  if (tp !== null) return toOtelSpanId(tp[2]);
  return HEX16.test(raw) && raw !== ZERO16 ? raw.toLowerCase() : undefined;
}
