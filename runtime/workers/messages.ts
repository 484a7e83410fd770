/**
 * What the supervisor (the cluster primary) and its workers say to each other
 * over the cluster's IPC channel. Every message carries `fw: 'workers'`, so
 * an application's own messages on the same channel are left alone.
 */

/** One gathered view of a worker's metrics: prom-client's JSON of every registry, and `getMetrics()`'s snapshot. */
export interface WorkerMetrics {
  /** `registry.getMetricsAsJSON()` of each monitored gateway in the worker, concatenated. */
  readonly prometheus: readonly unknown[];
  /** `getMetrics()` of the worker (undefined without monitoring). */
  readonly snapshot: unknown;
}

export type WorkerMessage =
  /** Worker → primary: which ports should my `index`-th listen bind? */
  | { fw: 'workers'; kind: 'bind-request'; index: number }
  /** Primary → worker: bind these (undefined: bind what the application asked for; this worker's ports become everyone's). */
  | { fw: 'workers'; kind: 'bind-reply'; index: number; port: number | undefined; udpPort: number | undefined }
  /** Worker → primary: its `index`-th listen is bound. */
  | { fw: 'workers'; kind: 'listening'; index: number; port: number | undefined; udpPort: number | undefined; host: string }
  /** Primary → worker: readiness false, drain delay, drain, exit. */
  | { fw: 'workers'; kind: 'shutdown' }
  /** Worker → primary: the Prometheus text of every worker, please (a scrape arrived). */
  | { fw: 'workers'; kind: 'metrics-request'; id: number }
  /** Primary → worker: send your metrics for gathering `id`. */
  | { fw: 'workers'; kind: 'metrics-collect'; id: number }
  /** Worker → primary: its metrics for gathering `id`. */
  | { fw: 'workers'; kind: 'metrics-collected'; id: number; metrics: WorkerMetrics }
  /** Primary → the asking worker: every worker's metrics, aggregated. */
  | { fw: 'workers'; kind: 'metrics-aggregated'; id: number; text: string; contentType: string }
  /** Worker → primary, and primary → every other worker: a worker's latest `getMetrics()` snapshot. */
  | { fw: 'workers'; kind: 'snapshot'; worker: number; snapshot: unknown }
  /** Primary → every worker: a worker is gone; drop its snapshot. */
  | { fw: 'workers'; kind: 'worker-gone'; worker: number };

/** Whether an IPC message is one of fw's. */
export function isWorkerMessage(message: unknown): message is WorkerMessage {
  return typeof message === 'object' && message !== null && (message as { fw?: unknown }).fw === 'workers' && typeof (message as { kind?: unknown }).kind === 'string';
}

/** Environment the supervisor sets on each worker it forks: its slot, 0..n-1 (a restarted worker keeps its slot). */
export const WORKER_SLOT_ENV = 'FW_WORKER_SLOT';
