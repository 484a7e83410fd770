/**
 * Consul discovery through the catalog HTTP API:
 * `GET <url>/v1/catalog/service/<name>`, then blocking queries
 * (`?index=<X-Consul-Index>&wait=<n>s`) so a change is seen as soon as Consul
 * has it. Address is `ServiceAddress`, else the node `Address`; weight is
 * `ServiceWeights.Passing`. Errors keep the last list and retry with backoff
 * (1 s doubling to 30 s); `close()` aborts the queries in flight.
 */
import type { ConsulOptions, InstanceAddress } from '../discovery-config';
import type { InstanceSource, InstancesListener, ProblemListener } from './instance-source';

interface CatalogEntry {
  Address?: string;
  ServiceAddress?: string;
  ServicePort?: number;
  ServiceWeights?: { Passing?: number };
}

export class ConsulSource implements InstanceSource {
  readonly #url: string;
  readonly #wait: number;
  readonly #token: string | undefined;
  readonly #abort = new AbortController();

  constructor(options: ConsulOptions = {}) {
    this.#url = (options.url ?? 'http://127.0.0.1:8500').replace(/\/+$/, '');
    this.#wait = options.waitSeconds ?? 30;
    this.#token = options.token;
  }

  async start(services: readonly string[], onInstances: InstancesListener, onProblem: ProblemListener): Promise<void> {
    await Promise.all(
      services.map(async (service) => {
        const index = await this.#query(service, 0, onInstances, onProblem);
        void this.#follow(service, index, onInstances, onProblem);
      }),
    );
  }

  async close(): Promise<void> {
    this.#abort.abort();
  }

  async #follow(service: string, index: number, onInstances: InstancesListener, onProblem: ProblemListener): Promise<void> {
    let backoff = 1000;
    while (!this.#abort.signal.aborted) {
      const next = await this.#query(service, index, onInstances, onProblem);
      if (next < 0) {
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
        continue;
      }
      backoff = 1000;
      // Consul's rule: an index that goes backwards means reset.
      index = next < index ? 0 : next;
    }
  }

  /** One (blocking) query; returns the new index, or -1 on failure. */
  async #query(service: string, index: number, onInstances: InstancesListener, onProblem: ProblemListener): Promise<number> {
    const url = `${this.#url}/v1/catalog/service/${encodeURIComponent(service)}${index > 0 ? `?index=${index}&wait=${this.#wait}s` : ''}`;
    try {
      const headers: Record<string, string> = this.#token === undefined ? {} : { 'X-Consul-Token': this.#token };
      const res = await fetch(url, { headers, signal: this.#abort.signal });
      if (!res.ok) throw new Error(`consul ${url} answered ${res.status}`);
      const entries = (await res.json()) as CatalogEntry[];
      const newIndex = Number(res.headers.get('x-consul-index') ?? '0');
      if (newIndex !== index || index === 0) onInstances(service, entries.flatMap((e) => toAddress(e)));
      // A server that does not block would otherwise be polled in a tight loop.
      if (index > 0 && newIndex === index) await this.#sleep(1000);
      return Number.isFinite(newIndex) ? newIndex : 0;
    } catch (error) {
      if (!this.#abort.signal.aborted) onProblem(service, error as Error);
      return -1;
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.#abort.signal.aborted) return resolve();
      const t = setTimeout(resolve, ms);
      t.unref();
      this.#abort.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      }, { once: true });
    });
  }
}

function toAddress(e: CatalogEntry): InstanceAddress[] {
  const host = e.ServiceAddress !== undefined && e.ServiceAddress !== '' ? e.ServiceAddress : e.Address;
  if (host === undefined || host === '' || typeof e.ServicePort !== 'number' || e.ServicePort <= 0) return [];
  const w = e.ServiceWeights?.Passing;
  return [{ host, port: e.ServicePort, weight: typeof w === 'number' && w > 0 ? w : 1 }];
}
