/**
 * etcd discovery (etcd3 client): each instance is a key
 * `<prefix><service>/<id>` whose value is a JSON InstanceAddress
 * (`{"host":"10.0.0.5","port":50051,"weight":2}`), usually put under a lease
 * so it vanishes when the instance dies. The prefix is read, then watched;
 * every put or delete re-reads it (one read at a time per service, coalescing
 * bursts). Malformed values are skipped and reported. When etcd cannot be
 * reached, start() still returns after `startTimeoutMs` (the service has no
 * instances meanwhile) and reads are retried every `retryIntervalMs` until it
 * answers. etcd3's own fault handling is set for fast recovery: no per-host
 * circuit breaker (it kept reads failing for 5 s after etcd was back) and
 * watch reconnects at most 1 s apart (its default backoff grows to 30 s).
 */
import { ExponentialBackoff, noop, type IBackoff } from 'cockatiel';
import type { Etcd3, Watcher } from 'etcd3';
import { loadOptionalPeer } from '../../../core/optional-peer';
import { checkInstance, type EtcdOptions, type InstanceAddress } from '../discovery-config';
import { DEFAULT_ETCD_PREFIX } from '../etcd-registration';
import type { InstanceSource, InstancesListener, ProblemListener } from './instance-source';

const CALL_TIMEOUT_MS = 5000;
const START_TIMEOUT_MS = 5000;
const RETRY_INTERVAL_MS = 500;

export class EtcdSource implements InstanceSource {
  readonly #client: Etcd3;
  readonly #prefix: string;
  readonly #startTimeoutMs: number;
  readonly #retryMs: number;
  readonly #watchers: Watcher[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(options: EtcdOptions) {
    // etcd3 is an optional peer of fw: installed only by services discovered through etcd.
    const { Etcd3: EtcdClient } = loadOptionalPeer<typeof import('etcd3')>('etcd3', "the 'etcd' discovery provider");
    this.#client = new EtcdClient({
      hosts: typeof options.hosts === 'string' ? options.hosts : [...options.hosts],
      dialTimeout: 3000,
      // Without a deadline a read waits for etcd forever; watches are streams and stay open.
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + CALL_TIMEOUT_MS }),
      // Reads are retried here, on a short fixed interval; watches reconnect within a second of etcd's return.
      // etcd3 types watchBackoff as a backoff but calls next() on it first, as on its own default, a factory: hence the cast.
      faultHandling: { host: () => noop, global: noop, watchBackoff: new ExponentialBackoff({ initialDelay: 100, maxDelay: 1000 }) as unknown as IBackoff<unknown> },
    });
    this.#retryMs = options.retryIntervalMs ?? RETRY_INTERVAL_MS;
    this.#prefix = options.prefix ?? DEFAULT_ETCD_PREFIX;
    this.#startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  }

  async start(services: readonly string[], onInstances: InstancesListener, onProblem: ProblemListener): Promise<void> {
    await Promise.all(services.map((service) => this.#follow(service, onInstances, onProblem)));
  }

  #later(ms: number, fn: () => void): void {
    if (this.#closed) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    t.unref();
    this.#timers.add(t);
  }

  async #follow(service: string, onInstances: InstancesListener, onProblem: ProblemListener): Promise<void> {
    const prefix = `${this.#prefix}${service}/`;
    let running = false;
    let again = false;
    let retrying = false;
    const relist = async (): Promise<boolean> => {
      if (running) {
        again = true;
        return false;
      }
      running = true;
      try {
        do {
          again = false;
          const kvs = await this.#client.getAll().prefix(prefix).strings();
          if (this.#closed) return false;
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
        return true;
      } catch (error) {
        if (this.#closed) return false;
        onProblem(service, error as Error);
        if (!retrying) {
          retrying = true;
          this.#later(this.#retryMs, () => {
            retrying = false;
            void relist();
          });
        }
        return false;
      } finally {
        running = false;
      }
    };
    this.#watch(prefix, service, relist, onProblem);
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([
      relist(),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), this.#startTimeoutMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    if (first === 'timeout') onProblem(service, new Error(`etcd did not answer within ${this.#startTimeoutMs} ms; instances appear once it does`));
  }

  /**
   * Watches the prefix. The watcher is kept from the start, not once etcd
   * confirms it: etcd3 reconnects it on its own (with backoff) while etcd is
   * down, and close() must be able to cancel a watch that never connected,
   * or etcd3 would keep retrying it, and the process alive, after close.
   */
  #watch(prefix: string, service: string, relist: () => Promise<boolean>, onProblem: ProblemListener): void {
    const watcher = this.#client.watch().prefix(prefix).watcher();
    this.#watchers.push(watcher);
    watcher.on('put', () => void relist());
    watcher.on('delete', () => void relist());
    // On every (re)connect, re-read: changes may have happened while the watch was down.
    watcher.on('connected', () => void relist());
    watcher.on('error', (error: Error) => onProblem(service, error));
    // The watch stream broke (etcd gone): report it, and read the list again until etcd answers.
    watcher.on('disconnected', (error: Error) => {
      onProblem(service, error);
      void relist();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    await Promise.allSettled(this.#watchers.map((w) => w.cancel()));
    this.#client.close();
  }
}
