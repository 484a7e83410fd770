/**
 * Builds the span exporter for a tracing provider: `otlp` and `jaeger`
 * through the OTLP/HTTP exporter (Jaeger ≥ 1.35 ingests OTLP natively on
 * port 4318; its own Thrift exporter is deprecated), `zipkin` through the
 * Zipkin exporter. An injected exporter wins over all of them.
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadOptionalPeer } from '../../core/optional-peer';
import type { TracingProvider } from './monitoring-config';

export const DEFAULT_ENDPOINTS: Readonly<Record<TracingProvider, string>> = {
  otlp: 'http://localhost:4318/v1/traces',
  jaeger: 'http://localhost:4318/v1/traces',
  zipkin: 'http://localhost:9411/api/v2/spans',
};

/** The exporter of `provider`, sending to `endpoint` (or the provider's default). */
export function createSpanExporter(provider: TracingProvider, endpoint: string | undefined, serviceName: string): SpanExporter {
  const url = endpoint ?? DEFAULT_ENDPOINTS[provider];
  switch (provider) {
    // Exporters are optional peers of fw: a service installs the one its tracing provider names.
    case 'zipkin': {
      const { ZipkinExporter } = loadOptionalPeer<typeof import('@opentelemetry/exporter-zipkin')>('@opentelemetry/exporter-zipkin', "tracing provider 'zipkin'");
      return new ZipkinExporter({ url, serviceName });
    }
    case 'otlp':
    case 'jaeger': {
      const { OTLPTraceExporter } = loadOptionalPeer<typeof import('@opentelemetry/exporter-trace-otlp-http')>('@opentelemetry/exporter-trace-otlp-http', `tracing provider '${provider}'`);
      return new OTLPTraceExporter({ url });
    }
  }
}
