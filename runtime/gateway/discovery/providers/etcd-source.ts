/**
 * etcd discovery (etcd3 client): each instance is a key
 * `<prefix><service>/<id>` whose value is a JSON InstanceAddress
 * (`{"host":"10.0.0.5","port":50051,"weight":2}`), usually put under a lease
 * so it vanishes when the instance dies. The prefix is read once, then
 * watched; every put or delete re-reads it (one read at a time per service,
 * coalescing bursts). Malformed values are skipped and reported.
 */
import { Etcd3, type Watcher } from 'etcd3';
import { checkInstance, type EtcdOptions, type InstanceAddress } from '../discovery-config';
import { DEFAULT_ETCD_PREFIX } from '../etcd-registration';
import type { InstanceSource, InstancesListener, ProblemListener } from './instance-source';

export class EtcdSource implements InstanceSource {
  readonly #client: Etcd3;
  readonly #prefix: string;
  readonly #watchers: Watcher[] = [];
  #closed = false;

  constructor(options: EtcdOptions) {
    this.#client = new Etcd3({ hosts: typeof options.hosts === 'string' ? options.hosts : [...options.hosts], dialTimeout: 3000 });
    this.#prefix = options.prefix ?? DEFAULT_ETCD_PREFIX;
  }

  async start(services: readonly string[], onInstances: InstancesListener, onProblem: ProblemListener): Promise<void> {
    await Promise.all(services.map((service) => this.#follow(service, onInstances, onProblem)));
  }

  async #follow(service: string, onInstances: InstancesListener, onProblem: ProblemListener): Promise<void> {
    const prefix = `${this.#prefix}${service}/`;
    let running = false;
    let again = false;
    const relist = async (): Promise<void> => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          const kvs = await this.#client.getAll().prefix(prefix).strings();
          if (this.#closed) return;
          const list: InstanceAddress[] = [];
          for (const [key, value] of Object.entries(kvs)) {
            try {
              list.push(checkInstance(JSON.parse(value) as unknown, `etcd key ${key}`));
            } catch (error) {
              onProblem(service, error as Error);
            }
          }
          onInstances(service, list);
        } while (again && !this.#closed);
      } catch (error) {
        if (!this.#closed) onProblem(service, error as Error);
      } finally {
        running = false;
      }
    };
    await relist();
    if (this.#closed) return;
    try {
      const watcher = await this.#client.watch().prefix(prefix).create();
      this.#watchers.push(watcher);
      watcher.on('put', () => void relist());
      watcher.on('delete', () => void relist());
      // After a reconnect, re-read in case the watch resumed past a compaction.
      watcher.on('connected', () => void relist());
      watcher.on('error', (error) => onProblem(service, error));
    } catch (error) {
      onProblem(service, error as Error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#watchers.map((w) => w.cancel()));
    this.#client.close();
  }
}
