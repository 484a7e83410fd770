/**
 * Process metrics (CPU, memory, event loop, GC, open handles) in one
 * registry per process, shared by every gateway's `/metrics`: the process is
 * one, and prom-client's collectors start observers that should run once.
 * prom-client's defaults include three gauges named `*_total`
 * (`nodejs_active_handles_total`, `…_requests_total`, `…_resources_total`),
 * which Prometheus's naming rules reserve for counters; they are removed, and
 * their per-type gauges (`nodejs_active_handles{type}`, …) remain, so
 * `sum(nodejs_active_handles)` gives the same figure.
 *
 * Across workers (the supervisor's AggregatorRegistry) a metric adds up by
 * the `aggregator` prom-client gives it, a sum by default; the two whose sum
 * would misreport the service take the greatest (`process_max_fds`, a
 * per-process limit) and the least (`process_start_time_seconds`, which
 * prom-client would drop: the oldest worker's start).
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

/** Default gauges whose names end in `_total` (promtool: "non-counter metrics should not have _total suffix"). */
const GAUGES_NAMED_AS_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

let shared: Registry | undefined;

/** The process's metrics registry, created on first use. */
export function processMetricsRegistry(): Registry {
  if (shared === undefined) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    for (const name of GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(name);
    shared = registry;
  }
  return shared;
}

/** How a process metric adds up across workers where prom-client's own choice would misreport it. */
const ACROSS_WORKERS: Readonly<Record<string, 'max' | 'min'>> = { process_max_fds: 'max', process_start_time_seconds: 'min' };

/** The process's metrics as prom-client's JSON, each with the aggregator it adds up by across workers. */
export async function processMetricsJSON(): Promise<unknown[]> {
  const metrics = await processMetricsRegistry().getMetricsAsJSON();
  return metrics.map((metric) => {
    const aggregator = ACROSS_WORKERS[metric.name];
    return aggregator === undefined ? metric : { ...metric, aggregator };
  });
}
