/**
 * One span per gateway call, following OpenTelemetry's semantic conventions
 * for RPC server spans (v1.45.0, where the RPC conventions are stable), plus
 * the HTTP server attributes on calls an HTTP request carries (HTTP/JSON,
 * Connect, gRPC-Web). Named by the fully qualified method
 * (`user.UserService/GetUser`).
 *
 * The trace context the transport read from the client (context.tracing)
 * becomes the span's parent: a remote parent when the client named its span
 * (traceparent), otherwise — on fw's own provider — a root span whose trace
 * id is the client's correlation id. Spans go through the application's
 * TracerProvider when it passes one; fw's own provider is private to the
 * gateway and never registered globally.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context as otelContext, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { BasicTracerProvider, IdGenerator } from '@opentelemetry/sdk-trace-base';
import { GrpcStatus, grpcStatusName } from '../../core/status';
import { loadOptionalPeer } from '../../core/optional-peer';
import type { DispatchCall } from '../extension-points';
import { HttpCallContext } from '../http-exchange';
import type { CallRecord } from './call-record';
import { grpcStatusNameOfError } from './call-status';
import { OTHER_METHOD } from './method-names';
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

/** gRPC codes a server span counts as its own failure (the conventions' gRPC list); the rest are the caller's. */
const GRPC_SERVER_ERRORS = new Set(['UNKNOWN', 'DEADLINE_EXCEEDED', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS']);

/** The conventions' `rpc.system.name`: gRPC and gRPC-Web are `grpc`, Connect `connectrpc`, fw's own envelopes `fw`. */
function rpcSystem(call: DispatchCall): string {
  const c = call.context;
  if (c.protocol === 'grpc') return 'grpc';
  if (c.protocol === 'http' && c.metadata.rpc === 'connect') return 'connectrpc';
  return 'fw';
}

/** Statuses on the gRPC scale: gRPC, gRPC-Web and Connect calls. */
function speaksGrpcStatus(system: string): boolean {
  return system === 'grpc' || system === 'connectrpc';
}

/** A span and what its end needs to know. */
export class CallSpan {
  constructor(
    readonly span: Span,
    /** The span as the active context: the handler runs inside it. */
    readonly context: Context,
    readonly system: string,
    readonly http: boolean,
  ) {}
}

export class CallTracer {
  readonly #provider: BasicTracerProvider | undefined;
  readonly #tracer: Tracer;
  readonly #ids: CorrelatedIdGenerator | undefined;
  readonly #spanAttributes: ((context: SpanAttributeContext) => Record<string, SpanAttributeValue>) | undefined;

  constructor(config: NormalizedMonitoringConfig['tracing']) {
    this.#spanAttributes = config.spanAttributes;
    if (config.tracerProvider !== undefined) {
      this.#provider = undefined;
      this.#ids = undefined;
      this.#tracer = config.tracerProvider.getTracer('fw-gateway');
      return;
    }
    // The OpenTelemetry SDK is an optional peer of fw: installed only by services that trace.
    const feature = 'monitoring.tracing';
    const { BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator, SimpleSpanProcessor } = loadOptionalPeer<typeof import('@opentelemetry/sdk-trace-base')>('@opentelemetry/sdk-trace-base', feature);
    const { resourceFromAttributes } = loadOptionalPeer<typeof import('@opentelemetry/resources')>('@opentelemetry/resources', feature);
    const ids = new CorrelatedIdGenerator(new RandomIdGenerator());
    this.#ids = ids;
    const serviceName = config.serviceName ?? 'fw-gateway';
    const exporter = config.exporter ?? createSpanExporter(config.provider, config.endpoint, serviceName);
    const processor = config.exportImmediately === true ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
    this.#provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName }),
      idGenerator: ids,
      spanProcessors: [processor],
    });
    this.#tracer = this.#provider.getTracer('fw-gateway');
  }

  /**
   * Starts the call's span and writes its ids back into `context.tracing`, so
   * replies can echo them and forwarded calls pass them on. `method` is the
   * fully qualified name, undefined for a method not served here.
   */
  start(call: DispatchCall, method: string | undefined): CallSpan {
    const tracing = call.context.tracing;
    const traceId = toOtelTraceId(tracing.traceId);
    const parentSpanId = toOtelSpanId(tracing.parentSpanId ?? tracing.spanId) ?? toOtelSpanId(tracing.traceId);
    const active = otelContext.active();
    let parent: Context;
    if (trace.getSpan(active) !== undefined) {
      // Already inside a span of the application (its HTTP instrumentation, say): the call nests under it.
      parent = active;
    } else if (traceId !== undefined && parentSpanId !== undefined) {
      parent = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
    } else {
      parent = ROOT_CONTEXT;
      if (this.#ids !== undefined) this.#ids.next = traceId;
    }
    const system = rpcSystem(call);
    const http = call.context instanceof HttpCallContext;
    const attributes = this.#attributes(call, system, method, http);
    const span = this.#tracer.startSpan(method ?? system, { kind: SpanKind.SERVER, attributes }, parent);
    if (this.#ids !== undefined) this.#ids.next = undefined;
    const ids = span.spanContext();
    if (traceId === undefined) tracing.traceId = ids.traceId;
    else if (ids.traceId !== tracing.traceId) span.setAttribute('fw.correlation_id', tracing.traceId);
    if (parentSpanId !== undefined) tracing.parentSpanId = parentSpanId;
    tracing.spanId = ids.spanId;
    tracing.traceparent = `00-${ids.traceId}-${ids.spanId}-0${ids.traceFlags & TraceFlags.SAMPLED}`;
    return new CallSpan(span, trace.setSpan(parent, span), system, http);
  }

  /** Ends the span with the call's outcome: status code attributes, and ERROR status when the failure is the server's. */
  end(callSpan: CallSpan, record: CallRecord): void {
    const { span, system } = callSpan;
    const grpcScale = speaksGrpcStatus(system);
    const status = record.failed ? (grpcScale ? (record.status === 'CANCELLED' ? 'CANCELLED' : grpcStatusNameOfError(record.error)) : record.status) : grpcScale ? grpcStatusName(GrpcStatus.OK) : 'OK';
    span.setAttribute('rpc.status_code', status);
    if (callSpan.http) span.setAttribute('http.response.status_code', record.httpStatus);
    if (record.failed) {
      span.setAttribute('error.type', status);
      if (record.error instanceof Error) span.recordException(record.error);
      const serverFault = grpcScale ? GRPC_SERVER_ERRORS.has(status) : record.httpStatus >= 500;
      if (serverFault) span.setStatus({ code: SpanStatusCode.ERROR, message: record.error instanceof Error ? record.error.message : status });
    }
    span.end();
  }

  /** Exports every finished span now (fw's provider, or the application's when it can flush). */
  flush(): Promise<void> {
    return this.#provider?.forceFlush() ?? Promise.resolve();
  }

  /** Shuts fw's own provider down; an application's provider is left to the application. */
  close(): Promise<void> {
    return this.#provider?.shutdown() ?? Promise.resolve();
  }

  #attributes(call: DispatchCall, system: string, method: string | undefined, http: boolean): Attributes {
    const c = call.context;
    const client = c.client;
    const attributes: Attributes = {
      'rpc.system.name': system,
      'rpc.method': method ?? OTHER_METHOD,
      'network.transport': c.protocol === 'udp' ? 'udp' : 'tcp',
      'network.peer.address': client.address,
      'network.peer.port': client.port,
      'fw.protocol': c.protocol,
    };
    if (method === undefined) attributes['rpc.method_original'] = `${call.service}/${call.method}`;
    if (http && c instanceof HttpCallContext) {
      const req = c.httpRequest;
      attributes['http.request.method'] = req.method;
      attributes['url.path'] = req.path;
      attributes['url.scheme'] = req.scheme;
      attributes['network.protocol.name'] = 'http';
      attributes['network.protocol.version'] = req.version;
      attributes['client.address'] = client.address;
      attributes['client.port'] = client.port;
      if (client.userAgent !== undefined) attributes['user_agent.original'] = client.userAgent;
      if (req.host !== undefined) {
        const { address, port } = splitHost(req.host);
        attributes['server.address'] = address;
        if (port !== undefined) attributes['server.port'] = port;
      }
    }
    if (this.#spanAttributes === undefined) return attributes;
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
      return { ...attributes, ...this.#spanAttributes(view) };
    } catch (error) {
      // A failing attribute function must not fail the call it describes.
      return { ...attributes, 'fw.span_attributes_error': error instanceof Error ? error.message : String(error) };
    }
  }
}

/** `host[:port]` of a Host header (`[::1]:8080` for IPv6). */
function splitHost(host: string): { address: string; port: number | undefined } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(host);
  if (m === null) return { address: host, port: undefined };
  const address = (m[1] as string).replace(/^\[|\]$/g, '');
  return { address, port: m[2] === undefined ? undefined : Number(m[2]) };
}
