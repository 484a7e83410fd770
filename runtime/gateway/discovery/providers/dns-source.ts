/**
 * DNS SRV discovery: `_grpc._tcp.<service>[.<domain>]` (or `srvName(service)`)
 * resolved through node:dns with optional resolver servers, re-resolved every
 * `refreshIntervalMs`. Only the lowest-priority group is used (RFC 2782);
 * SRV weights become instance weights (0 counts as 1). A name that does not
 * exist empties the service; a failing resolver keeps the last list.
 */
import { Resolver } from 'node:dns/promises';
import type { DnsOptions } from '../discovery-config';
import type { InstanceSource, InstancesListener, ProblemListener } from './instance-source';

const GONE = new Set(['ENOTFOUND', 'ENODATA']);

export class DnsSource implements InstanceSource {
  readonly #options: DnsOptions;
  readonly #resolver = new Resolver();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: DnsOptions = {}) {
    this.#options = options;
    if (options.servers !== undefined && options.servers.length > 0) this.#resolver.setServers([...options.servers]);
  }

  srvName(service: string): string {
    if (this.#options.srvName !== undefined) return this.#options.srvName(service);
    return this.#options.domain === undefined ? `_grpc._tcp.${service}` : `_grpc._tcp.${service}.${this.#options.domain}`;
  }

  async start(services: readonly string[], onInstances: InstancesListener, onProblem: ProblemListener): Promise<void> {
    const refresh = (): Promise<void> =>
      Promise.all(services.map((service) => this.#resolve(service, onInstances, onProblem))).then(() => undefined);
    await refresh();
    this.#timer = setInterval(() => void refresh(), this.#options.refreshIntervalMs ?? 30_000);
    this.#timer.unref();
  }

  async #resolve(service: string, onInstances: InstancesListener, onProblem: ProblemListener): Promise<void> {
    try {
      const records = await this.#resolver.resolveSrv(this.srvName(service));
      const best = Math.min(...records.map((r) => r.priority));
      onInstances(
        service,
        records.filter((r) => r.priority === best).map((r) => ({ host: r.name, port: r.port, weight: Math.max(1, r.weight) })),
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== undefined && GONE.has(code)) onInstances(service, []);
      else onProblem(service, error as Error);
    }
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#resolver.cancel();
  }
}
