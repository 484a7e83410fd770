/**
 * Configuration of gateway monitoring (spec 4.10 "Monitoring"): which metrics
 * are collected, how spans are exported and which fields each log line holds.
 * `normalizeMonitoringConfig` turns the user's partial object into a complete
 * one once, so the per-call path never tests for missing keys.
 */
import type { TracerProvider } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { DestinationStream, Level } from 'pino';
import type { Protocol, RequestContext } from '../../core/request-context';

/** The five collectors of spec 4.10. */
export type MetricsCollector = 'request_count' | 'request_duration' | 'error_rate' | 'active_connections' | 'throughput';

/** Protocol-specific metric keys of spec 4.10, per protocol. */
export interface ProtocolMetricsConfig {
  http?: ReadonlyArray<'status_codes' | 'user_agents'>;
  websocket?: ReadonlyArray<'connection_duration' | 'message_frequency'>;
  grpc?: ReadonlyArray<'stream_count' | 'rpc_latency'>;
  udp?: ReadonlyArray<'packet_loss' | 'packet_size'>;
  tcp?: ReadonlyArray<'connection_pool' | 'buffer_utilization'>;
}

export interface MetricsConfig {
  /** Default true. When false, calls are not counted (tracing and logging still run). */
  enabled?: boolean;
  /** Default: all five collectors. */
  collectors?: readonly MetricsCollector[];
  /** Default: every key of every protocol. */
  protocolMetrics?: ProtocolMetricsConfig;
  /** Default true: `/metrics` also carries the process's metrics (CPU, memory, event loop, GC, handles). */
  processMetrics?: boolean;
}

/** The tracing backends: OTLP/HTTP, Zipkin, and Jaeger (through its OTLP/HTTP endpoint). */
export type TracingProvider = 'otlp' | 'zipkin' | 'jaeger';

/** What `spanAttributes` receives: the call's context plus the service and method it names. */
export interface SpanAttributeContext extends RequestContext {
  service: string;
  method: string;
}

export type SpanAttributeValue = string | number | boolean;

export interface TracingConfig {
  /** Default false. */
  enabled?: boolean;
  /** Default `otlp`. */
  provider?: TracingProvider;
  /** Collector URL. Defaults: otlp and jaeger `http://localhost:4318/v1/traces`, zipkin `http://localhost:9411/api/v2/spans`. */
  endpoint?: string;
  /** Header (and envelope/metadata key) carrying the trace id. Default `X-Trace-ID`. */
  correlationHeader?: string;
  /** Attributes of each call's span. Default: protocol, client address, service, method. */
  spanAttributes?: (context: SpanAttributeContext) => Record<string, SpanAttributeValue>;
  /** `service.name` resource attribute of exported spans. Default `fw-gateway`. */
  serviceName?: string;
  /** Use this exporter instead of the provider's (tests pass an `InMemorySpanExporter`). */
  exporter?: SpanExporter;
  /** Export each span as it ends instead of in batches (handy with an injected exporter). Default false. */
  exportImmediately?: boolean;
  /**
   * The application's own TracerProvider: spans go through it (its processors,
   * exporters, sampler and resource), and `provider`, `endpoint`, `exporter`,
   * `exportImmediately` and `serviceName` are then unused. fw never shuts it down.
   */
  tracerProvider?: TracerProvider;
}

/** Fields a log line may carry; the first seven are the spec's. */
export type LogField = 'timestamp' | 'protocol' | 'service' | 'method' | 'client_id' | 'duration' | 'status' | 'trace_id' | 'error';

export interface LoggingConfig {
  /** Default true when a logging section is given. */
  enabled?: boolean;
  /** pino level: successful calls log at `info`, failed ones at `warn`. Default `info`. */
  level?: Level | 'silent';
  /** Only `json` (one JSON object per line). Default `json`. */
  format?: 'json';
  /** Exactly the keys of each line. Default: the spec's seven fields. */
  fields?: readonly LogField[];
  /** Where lines go. Default stdout. */
  destination?: DestinationStream | NodeJS.WritableStream;
}

/** `configureMonitoring(config)` argument, spec 4.10. */
export interface MonitoringConfig {
  metrics?: MetricsConfig;
  tracing?: TracingConfig;
  logging?: LoggingConfig;
}

/** A config with every default filled in. */
export interface NormalizedMonitoringConfig {
  metricsEnabled: boolean;
  processMetrics: boolean;
  collectors: ReadonlySet<MetricsCollector>;
  protocolMetrics: ReadonlySet<string>;
  tracing: TracingConfig & { enabled: boolean; provider: TracingProvider; correlationHeader: string };
  logging: LoggingConfig & { enabled: boolean; level: Level | 'silent'; fields: readonly LogField[] };
}

const ALL_COLLECTORS: readonly MetricsCollector[] = ['request_count', 'request_duration', 'error_rate', 'active_connections', 'throughput'];

const ALL_PROTOCOL_METRICS: Required<ProtocolMetricsConfig> = {
  http: ['status_codes', 'user_agents'],
  websocket: ['connection_duration', 'message_frequency'],
  grpc: ['stream_count', 'rpc_latency'],
  udp: ['packet_loss', 'packet_size'],
  tcp: ['connection_pool', 'buffer_utilization'],
};

const SPEC_LOG_FIELDS: readonly LogField[] = ['timestamp', 'protocol', 'service', 'method', 'client_id', 'duration', 'status'];
const KNOWN_LOG_FIELDS = new Set<string>([...SPEC_LOG_FIELDS, 'trace_id', 'error']);
const PROVIDERS = new Set<string>(['otlp', 'zipkin', 'jaeger']);

/** Thrown for a monitoring configuration that cannot work; names the offending key. */
export class MonitoringConfigError extends Error {
  override name = 'MonitoringConfigError';
}

/** Fills defaults and rejects unknown collectors, protocol metrics, providers, formats and fields. */
export function normalizeMonitoringConfig(config: MonitoringConfig = {}): NormalizedMonitoringConfig {
  const metrics = config.metrics ?? {};
  const collectors = metrics.collectors ?? ALL_COLLECTORS;
  for (const c of collectors) {
    if (!ALL_COLLECTORS.includes(c)) throw new MonitoringConfigError(`metrics.collectors: unknown collector "${String(c)}" (known: ${ALL_COLLECTORS.join(', ')})`);
  }
  const protocolMetrics = new Set<string>();
  const wanted = metrics.protocolMetrics ?? ALL_PROTOCOL_METRICS;
  for (const [protocol, keys] of Object.entries(wanted) as [Protocol, readonly string[] | undefined][]) {
    const known = ALL_PROTOCOL_METRICS[protocol] as readonly string[] | undefined;
    if (known === undefined) throw new MonitoringConfigError(`metrics.protocolMetrics: unknown protocol "${protocol}"`);
    for (const key of keys ?? []) {
      if (!known.includes(key)) throw new MonitoringConfigError(`metrics.protocolMetrics.${protocol}: unknown metric "${key}" (known: ${known.join(', ')})`);
      protocolMetrics.add(`${protocol}.${key}`);
    }
  }

  if (metrics.processMetrics !== undefined && typeof metrics.processMetrics !== 'boolean') {
    throw new MonitoringConfigError(`metrics.processMetrics: expected a boolean, got ${typeof metrics.processMetrics}`);
  }

  const tracing = config.tracing ?? {};
  const tp = tracing.tracerProvider as unknown;
  if (tp !== undefined && (typeof tp !== 'object' || tp === null || typeof (tp as { getTracer?: unknown }).getTracer !== 'function')) {
    throw new MonitoringConfigError('tracing.tracerProvider: expected an OpenTelemetry TracerProvider (an object with getTracer())');
  }
  const provider = tracing.provider ?? 'otlp';
  if (!PROVIDERS.has(provider)) throw new MonitoringConfigError(`tracing.provider: unknown provider "${String(provider)}" (known: otlp, zipkin, jaeger)`);

  const logging = config.logging;
  const fields = logging?.fields ?? SPEC_LOG_FIELDS;
  for (const f of fields) {
    if (!KNOWN_LOG_FIELDS.has(f)) throw new MonitoringConfigError(`logging.fields: unknown field "${String(f)}" (known: ${[...KNOWN_LOG_FIELDS].join(', ')})`);
  }
  if (logging?.format !== undefined && logging.format !== 'json') {
    throw new MonitoringConfigError(`logging.format: only "json" is supported, got "${String(logging.format)}"`);
  }

  return {
    metricsEnabled: metrics.enabled !== false,
    processMetrics: metrics.processMetrics !== false,
    collectors: new Set(collectors),
    protocolMetrics,
    tracing: { ...tracing, enabled: tracing.enabled === true, provider, correlationHeader: tracing.correlationHeader ?? 'X-Trace-ID' },
    logging: { ...logging, enabled: logging !== undefined && logging.enabled !== false, level: logging?.level ?? 'info', fields },
  };
}
