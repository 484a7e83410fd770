/**
 * One span per gateway call, named `<service>/<method>`, exported through the
 * configured provider. The trace id the transport read from the client
 * (context.tracing.traceId) becomes the span's trace id: as a remote parent
 * when the client also named its span (traceparent), otherwise as a root span
 * whose trace id is taken from the id generator. The tracer provider is
 * private to the gateway and never registered globally, so the application's
 * own OpenTelemetry setup is left alone.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { BasicTracerProvider, IdGenerator } from '@opentelemetry/sdk-trace-base';
import { loadOptionalPeer } from '../../core/optional-peer';
import type { DispatchCall } from '../extension-points';
import type { CallRecord } from './call-record';
import type { NormalizedMonitoringConfig, SpanAttributeContext, SpanAttributeValue } from './monitoring-config';
import { createSpanExporter } from './span-exporter';
import { toOtelSpanId, toOtelTraceId } from './trace-id';

/** Random ids, except that the next trace id may be set just before a span starts (starting is synchronous). */
class CorrelatedIdGenerator implements IdGenerator {
  readonly #random: IdGenerator;
  next: string | undefined = undefined;

  constructor(random: IdGenerator) {
    this.#random = random;
  }

  generateTraceId(): string {
    const id = this.next;
    this.next = undefined;
    return id ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    return this.#random.generateSpanId();
  }
}

function defaultAttributes(call: DispatchCall): Attributes {
  return {
    protocol: call.context.protocol,
    'client.address': call.context.client.address,
    'rpc.service': call.service,
    'rpc.method': call.method,
  };
}

export class CallTracer {
  readonly #provider: BasicTracerProvider;
  readonly #tracer: Tracer;
  readonly #ids: CorrelatedIdGenerator;
  readonly #spanAttributes: ((context: SpanAttributeContext) => Record<string, SpanAttributeValue>) | undefined;

  constructor(config: NormalizedMonitoringConfig['tracing']) {
    // The OpenTelemetry SDK is an optional peer of fw: installed only by services that trace.
    const feature = 'monitoring.tracing';
    const { BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator, SimpleSpanProcessor } = loadOptionalPeer<typeof import('@opentelemetry/sdk-trace-base')>('@opentelemetry/sdk-trace-base', feature);
    const { resourceFromAttributes } = loadOptionalPeer<typeof import('@opentelemetry/resources')>('@opentelemetry/resources', feature);
    this.#ids = new CorrelatedIdGenerator(new RandomIdGenerator());
    const serviceName = config.serviceName ?? 'fw-gateway';
    const exporter = config.exporter ?? createSpanExporter(config.provider, config.endpoint, serviceName);
    const processor = config.exportImmediately === true ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
    this.#provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName }),
      idGenerator: this.#ids,
      spanProcessors: [processor],
    });
    this.#tracer = this.#provider.getTracer('fw-gateway');
    this.#spanAttributes = config.spanAttributes;
  }

  /** Starts the call's span and writes its ids back into `context.tracing`, so replies can echo them. */
  start(call: DispatchCall): Span {
    const tracing = call.context.tracing;
    const traceId = toOtelTraceId(tracing.traceId);
    const parentSpanId = toOtelSpanId(tracing.parentSpanId ?? tracing.spanId) ?? toOtelSpanId(tracing.traceId);
    let parent = ROOT_CONTEXT;
    if (traceId !== undefined && parentSpanId !== undefined) {
      parent = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    } else {
      this.#ids.next = traceId;
    }
    const span = this.#tracer.startSpan(`${call.service}/${call.method}`, { kind: SpanKind.SERVER, attributes: this.#attributes(call) }, parent);
    this.#ids.next = undefined;
    const ids = span.spanContext();
    if (traceId === undefined) tracing.traceId = ids.traceId;
    else if (traceId !== tracing.traceId) span.setAttribute('fw.correlation_id', tracing.traceId);
    if (parentSpanId !== undefined) tracing.parentSpanId = parentSpanId;
    tracing.spanId = ids.spanId;
    return span;
  }

  /** Ends the span with the call's outcome. */
  end(span: Span, record: CallRecord): void {
    span.setAttribute('fw.status', record.status);
    if (record.failed) {
      const message = record.error instanceof Error ? record.error.message : record.status;
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      if (record.error instanceof Error) span.recordException(record.error);
    }
    span.end();
  }

  /** Exports every finished span now. */
  flush(): Promise<void> {
    return this.#provider.forceFlush();
  }

  close(): Promise<void> {
    return this.#provider.shutdown();
  }

  #attributes(call: DispatchCall): Attributes {
    if (this.#spanAttributes === undefined) return defaultAttributes(call);
    const c = call.context;
    const view: SpanAttributeContext = {
      protocol: c.protocol,
      client: c.client,
      headers: c.headers,
      metadata: c.metadata,
      authentication: c.authentication,
      tracing: c.tracing,
      signal: c.signal,
      call: c.call,
      service: call.service,
      method: call.method,
    };
    try {
      return this.#spanAttributes(view);
    } catch (error) {
      // A failing attribute function must not fail the call it describes.
      return { ...defaultAttributes(call), 'fw.span_attributes_error': error instanceof Error ? error.message : String(error) };
    }
  }
}
