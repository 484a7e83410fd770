/**
 * `fw_rate_limit_store_errors_total{outcome}` in prom-client's default
 * registry (the one `register.metrics()` serves): how many requests met a
 * failing rate-limit store, and whether they were let through or refused.
 * Created on the first failure, so apps whose store never fails load nothing.
 */
import type { Counter } from 'prom-client';

let counter: Counter<'outcome'> | undefined;

export function countStoreError(outcome: 'allowed' | 'refused'): void {
  if (counter === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Counter: CounterClass, register } = require('prom-client') as typeof import('prom-client');
    const existing = register.getSingleMetric('fw_rate_limit_store_errors_total') as Counter<'outcome'> | undefined;
    counter = existing ?? new CounterClass({ name: 'fw_rate_limit_store_errors_total', help: 'Requests that met a failing rate-limit store, by outcome (allowed: fail open; refused: 503)', labelNames: ['outcome'] });
  }
  counter.inc({ outcome });
}
