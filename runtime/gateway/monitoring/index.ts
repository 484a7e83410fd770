/**
 * Gateway monitoring: metrics (getMetrics + Prometheus text), OpenTelemetry
 * spans and pino call logs. See docs/observability.md.
 */
export { createMonitoring, type Monitoring } from './create-monitoring';
export {
  MonitoringConfigError,
  type LogField,
  type LoggingConfig,
  type MetricsCollector,
  type MetricsConfig,
  type MonitoringConfig,
  type ProtocolMetricsConfig,
  type SpanAttributeContext,
  type SpanAttributeValue,
  type TracingConfig,
  type TracingProvider,
} from './monitoring-config';
export type { DurationSummary, GatewayMetrics, ProtocolMetricsSnapshot } from './metrics-snapshot';
export { createSpanExporter, DEFAULT_ENDPOINTS } from './span-exporter';
export { toOtelTraceId } from './trace-id';
