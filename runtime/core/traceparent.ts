/**
 * The W3C trace-context `traceparent` value (`00-<trace id>-<parent span
 * id>-<flags>`), read once here for every transport and for `server.grpc()`.
 * Lowercase hex only, version `ff` and all-zero ids refused, as the
 * recommendation asks.
 */
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE = '00000000000000000000000000000000';
const ZERO_SPAN = '0000000000000000';

export interface TraceParent {
  readonly traceId: string;
  readonly parentSpanId: string;
}

/**
 * The trace and parent span a `traceparent` names, or undefined when it is not one.
 *
 * @example
 * parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
 * // { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7' }
 */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TRACEPARENT.exec(value);
  if (m === null) return undefined;
  const traceId = m[1] as string;
  const parentSpanId = m[2] as string;
  if (traceId === ZERO_TRACE || parentSpanId === ZERO_SPAN) return undefined;
  return { traceId, parentSpanId };
}
