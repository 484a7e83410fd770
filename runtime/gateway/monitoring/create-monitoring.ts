/**
 * `createMonitoring(config)`: the object behind `gateway.configureMonitoring`.
 * Its `interceptor` wraps every dispatched call (times it, counts it, spans
 * it, logs it); its `onEvent` takes transport happenings (connections,
 * message sizes, buffers). Streaming results are wrapped so a call is
 * recorded when its stream ends, fails or is abandoned, not when it starts.
 */
import { context as otelContext } from '@opentelemetry/api';
import type { DispatchCall, DispatchInterceptor, GatewayEvent, GatewayEventSink } from '../extension-points';
import { markMessageBlind } from '../pass-through';
import { CallLogger } from './call-logger';
import { CallRecord } from './call-record';
import { CANCELLED_STATUS, httpStatusOfError, statusOfError } from './call-status';
import { CallTracer, type CallSpan } from './call-tracer';
import { MethodNames, type MethodNamer } from './method-names';
import { MetricsSnapshot, type GatewayMetrics } from './metrics-snapshot';
import { normalizeMonitoringConfig, type MonitoringConfig } from './monitoring-config';
import { PrometheusMetrics } from './prometheus-metrics';

export interface Monitoring extends GatewayEventSink {
  /** Wraps dispatch; install it as the outermost interceptor so it times everything inside. */
  readonly interceptor: DispatchInterceptor;
  /** `{requests_total, avg_response_time, …}` per spec 4.10 (see GatewayMetrics). */
  getMetrics(): GatewayMetrics;
  /** Prometheus text exposition (serve it at `GET /metrics`). */
  metricsText(): Promise<string>;
  /** Every metric as prom-client's JSON (what a worker hands over when its supervisor aggregates a scrape). */
  metricsJSON(): Promise<unknown[]>;
  /** The process's metrics as prom-client's JSON, the same for every gateway of the process (empty with `processMetrics: false`). */
  processMetricsJSON(): Promise<unknown[]>;
  /** Content-Type of `metricsText()`. */
  readonly metricsContentType: string;
  /** Header name carrying the trace id (config.tracing.correlationHeader, default `X-Trace-ID`). */
  readonly correlationHeader: string;
  /** Exports pending spans and flushes pending log lines. */
  flush(): Promise<void>;
  /** Flushes, then shuts the tracer down. */
  close(): Promise<void>;
}

/** Stands for "the consumer abandoned the stream" in `finish`. */
const CANCELLED: unique symbol = Symbol('cancelled');

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

/**
 * Builds the monitoring of one gateway. `methodName` names a served method
 * fully for spans and says which calls name no served method (counted and
 * spanned as `_OTHER`); without it every call's `service/method` is taken as served.
 *
 * @example
 * const monitoring = createMonitoring({
 *   metrics: { enabled: true, collectors: ['request_count', 'request_duration'] },
 *   tracing: { enabled: true, provider: 'otlp', correlationHeader: 'X-Trace-ID' },
 *   logging: { level: 'info', format: 'json', fields: ['timestamp', 'protocol', 'service', 'method', 'duration', 'status'] },
 * });
 * // gateway core: dispatch = compose([monitoring.interceptor, ...], callHandler)
 * monitoring.getMetrics().requests_total.http; // → number of HTTP calls so far
 */
export function createMonitoring(config: MonitoringConfig = {}, methodName?: MethodNamer): Monitoring {
  const normalized = normalizeMonitoringConfig(config);
  const snapshot = new MetricsSnapshot(normalized);
  const prometheus = new PrometheusMetrics(normalized, snapshot);
  const tracer = normalized.tracing.enabled ? new CallTracer(normalized.tracing) : undefined;
  const names = new MethodNames(methodName);
  const logger = normalized.logging.enabled ? new CallLogger(normalized.logging) : undefined;
  const metricsOn = normalized.metricsEnabled;

  function finish(call: DispatchCall, record: CallRecord, started: number, span: CallSpan | undefined, error: unknown, failed: boolean): void {
    record.durationMs = performance.now() - started;
    if (failed) {
      record.failed = true;
      if (error === CANCELLED) {
        record.error = new Error('the client stopped reading the stream');
        record.status = CANCELLED_STATUS;
        record.httpStatus = 499;
      } else {
        record.error = error;
        record.status = statusOfError(error);
        record.httpStatus = httpStatusOfError(error);
      }
    }
    if (metricsOn) {
      snapshot.recordCall(record);
      prometheus.recordCall(record);
    }
    if (span !== undefined) tracer?.end(span, record);
    logger?.log(record, call.context, Date.now());
  }

  async function* observeStream(call: DispatchCall, stream: AsyncIterable<unknown>, record: CallRecord, started: number, span: CallSpan | undefined): AsyncGenerator<unknown> {
    let done = false;
    try {
      if (span === undefined) {
        for await (const item of stream) yield item;
      } else {
        // Each step of the handler's stream runs inside the call's span, as its first part did.
        const it = stream[Symbol.asyncIterator]();
        let settled = false;
        try {
          for (;;) {
            let step: IteratorResult<unknown>;
            try {
              step = await otelContext.with(span.context, () => it.next());
            } catch (error) {
              settled = true;
              throw error;
            }
            if (step.done === true) {
              settled = true;
              break;
            }
            yield step.value;
          }
        } finally {
          // The consumer left early: close the handler's stream as for-await would.
          if (!settled) await it.return?.();
        }
      }
      done = true;
      finish(call, record, started, span, undefined, false);
    } catch (error) {
      done = true;
      finish(call, record, started, span, error, true);
      throw error;
    } finally {
      // The consumer stopped early (client went away): the call ends as cancelled.
      if (!done) finish(call, record, started, span, CANCELLED, true);
    }
  }

  // Metrics, traces and logs read the call's names, context and outcome, never its message: forwarded calls may pass bytes through.
  const interceptor: DispatchInterceptor = markMessageBlind(async (call, next) => {
    const started = performance.now();
    const ctx = call.context;
    const qualified = names.of(call.service, call.method);
    const record = new CallRecord(ctx.protocol, call.service, call.method, call.streaming, ctx.client.userAgent ?? ctx.headers['user-agent'], qualified !== undefined);
    const span = tracer?.start(call, qualified);
    if (metricsOn && call.streaming !== 'none') {
      snapshot.streamStarted(ctx.protocol);
      prometheus.streamStarted(ctx.protocol);
    }
    let result: unknown;
    try {
      // The handler runs with the call's span active, so spans it starts are its children.
      result = span === undefined ? await next() : await otelContext.with(span.context, next);
    } catch (error) {
      finish(call, record, started, span, error, true);
      throw error;
    }
    if ((call.streaming === 'server' || call.streaming === 'bidirectional') && isAsyncIterable(result)) {
      return observeStream(call, result, record, started, span);
    }
    finish(call, record, started, span, undefined, false);
    return result;
  });

  return {
    interceptor,
    getMetrics: () => snapshot.snapshot(),
    metricsText: () => prometheus.text(),
    metricsJSON: () => prometheus.json(),
    processMetricsJSON: () => prometheus.processJSON(),
    metricsContentType: prometheus.contentType,
    correlationHeader: normalized.tracing.correlationHeader,
    onEvent(event: GatewayEvent): void {
      if (!metricsOn) return;
      snapshot.recordEvent(event);
      prometheus.recordEvent(event);
    },
    async flush(): Promise<void> {
      await Promise.all([tracer?.flush(), logger?.flush()]);
    },
    async close(): Promise<void> {
      await logger?.flush();
      await tracer?.close();
    },
  };
}
