/**
 * Builds the span exporter for a tracing provider: `otlp` and `jaeger`
 * through the OTLP/HTTP exporter (Jaeger ≥ 1.35 ingests OTLP natively on
 * port 4318; its own Thrift exporter is deprecated), `zipkin` through the
 * Zipkin exporter. An injected exporter wins over all of them.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
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
    case 'zipkin':
      return new ZipkinExporter({ url, serviceName });
    case 'otlp':
    case 'jaeger':
      return new OTLPTraceExporter({ url });
  }
}
