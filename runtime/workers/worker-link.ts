/**
 * A worker's side of the supervisor's IPC channel: it asks which ports to
 * bind (the first worker's ports are every worker's), says when it listens,
 * drains on the supervisor's `shutdown` (or when the supervisor is gone),
 * hands its metrics over when a scrape anywhere gathers them, publishes its
 * `getMetrics()` snapshot each second for the other workers, and keeps
 * theirs.
 */
import type { WorkerMessage, WorkerMetrics } from './messages';
import { isWorkerMessage } from './messages';
import { handleTerminationSignals, stopProcess } from './process-shutdown';
import { clusterWorkerId as workerId } from './port-sharing';

/** What a monitored server hands to a gathering. */
export interface MetricsSource {
  /** prom-client's `getMetricsAsJSON()` of its registry. */
  prometheusJSON(): Promise<readonly unknown[]>;
  /** The same of the process's metrics, which every source of a process shares: a gathering takes them once. */
  processJSON?(): Promise<readonly unknown[]>;
  /** Its own `getMetrics()` snapshot. */
  snapshot(): unknown;
}

/** Every worker's metrics, aggregated by the supervisor. */
export interface AggregatedMetrics {
  text: string;
  contentType: string;
}

/** How long a scrape waits for the supervisor's aggregate before it fails. */
const AGGREGATE_TIMEOUT_MS = 5_000;
const SNAPSHOT_INTERVAL_MS = 1_000;

type Pending<T> = { resolve(value: T): void; reject(error: Error): void; timer: NodeJS.Timeout };

class WorkerLink {
  readonly #sources = new Set<MetricsSource>();
  readonly #binds = new Map<number, (ports: { port: number | undefined; udpPort: number | undefined }) => void>();
  readonly #aggregates = new Map<number, Pending<AggregatedMetrics>>();
  readonly #peers = new Map<number, unknown>();
  #listens = 0;
  #seq = 0;
  #publisher: NodeJS.Timeout | undefined = undefined;

  constructor() {
    process.on('message', (message: unknown) => {
      if (isWorkerMessage(message)) this.#receive(message);
    });
    // The supervisor gone (killed, crashed): drain and go rather than serve unsupervised.
    process.once('disconnect', () => void stopProcess());
    handleTerminationSignals();
  }

  #send(message: WorkerMessage): void {
    if (process.connected) process.send?.(message);
  }

  #receive(message: WorkerMessage): void {
    switch (message.kind) {
      case 'bind-reply':
        this.#binds.get(message.index)?.({ port: message.port, udpPort: message.udpPort });
        this.#binds.delete(message.index);
        return;
      case 'shutdown':
        void stopProcess();
        return;
      case 'metrics-collect':
        void this.#collect().then((metrics) => this.#send({ fw: 'workers', kind: 'metrics-collected', id: message.id, metrics }));
        return;
      case 'metrics-aggregated': {
        const pending = this.#aggregates.get(message.id);
        if (pending === undefined) return;
        this.#aggregates.delete(message.id);
        clearTimeout(pending.timer);
        pending.resolve({ text: message.text, contentType: message.contentType });
        return;
      }
      case 'snapshot':
        if (message.worker !== workerId()) this.#peers.set(message.worker, message.snapshot);
        return;
      case 'worker-gone':
        this.#peers.delete(message.worker);
        return;
      default:
        return;
    }
  }

  async #collect(): Promise<WorkerMetrics> {
    const prometheus: unknown[] = [];
    let snapshot: unknown = undefined;
    let processTaken = false;
    for (const source of this.#sources) {
      try {
        prometheus.push(...(await source.prometheusJSON()));
        if (!processTaken && source.processJSON !== undefined) {
          const own = await source.processJSON();
          processTaken = own.length > 0;
          prometheus.push(...own);
        }
      } catch {
        // A registry that fails to collect leaves the others' figures standing.
      }
      snapshot ??= source.snapshot();
    }
    return { prometheus, snapshot };
  }

  /** Asks the supervisor which ports this process's next listen binds. */
  nextBind(): Promise<{ index: number; port: number | undefined; udpPort: number | undefined }> {
    const index = this.#listens++;
    return new Promise((resolve) => {
      this.#binds.set(index, (ports) => resolve({ index, ...ports }));
      this.#send({ fw: 'workers', kind: 'bind-request', index });
    });
  }

  /** Tells the supervisor the `index`-th listen is bound. */
  listening(index: number, address: { port: number | undefined; udpPort: number | undefined; host: string }): void {
    this.#send({ fw: 'workers', kind: 'listening', index, ...address });
  }

  /** Adds a monitored server to what this worker hands to gatherings and publishes. */
  addMetricsSource(source: MetricsSource): void {
    this.#sources.add(source);
    if (this.#publisher !== undefined) return;
    this.#publisher = setInterval(() => {
      const first = this.#sources.values().next();
      if (!first.done) this.#send({ fw: 'workers', kind: 'snapshot', worker: workerId(), snapshot: first.value.snapshot() });
    }, SNAPSHOT_INTERVAL_MS);
    this.#publisher.unref();
  }

  /** Every worker's Prometheus metrics, aggregated by the supervisor. */
  aggregatedMetrics(): Promise<AggregatedMetrics> {
    const id = ++this.#seq;
    return new Promise<AggregatedMetrics>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#aggregates.delete(id);
        reject(new Error(`the worker supervisor did not aggregate metrics within ${AGGREGATE_TIMEOUT_MS} ms`));
      }, AGGREGATE_TIMEOUT_MS);
      this.#aggregates.set(id, { resolve, reject, timer });
      this.#send({ fw: 'workers', kind: 'metrics-request', id });
    });
  }

  /** The other workers' latest `getMetrics()` snapshots (at most a second old). */
  peerSnapshots(): unknown[] {
    return [...this.#peers.values()];
  }
}

let link: WorkerLink | undefined;

/** The process's link to its supervisor (made on first use; call only in an fw worker). */
export function workerLink(): WorkerLink {
  return (link ??= new WorkerLink());
}

export type { WorkerLink };
