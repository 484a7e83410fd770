/**
 * Process metrics (CPU, memory, event loop, GC, open handles) in one
 * registry per process, shared by every gateway's `/metrics`: the process is
 * one, and prom-client's collectors start observers that should run once.
 * prom-client's defaults include three gauges named `*_total`
 * (`nodejs_active_handles_total`, `…_requests_total`, `…_resources_total`),
 * which Prometheus's naming rules reserve for counters; they are removed, and
 * their per-type gauges (`nodejs_active_handles{type}`, …) remain, so
 * `sum(nodejs_active_handles)` gives the same figure.
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
