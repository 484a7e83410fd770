/**
 * The cluster primary of `workers: n`: it forks n workers running the same
 * entry script, tells each which ports to bind (the first worker binds what
 * the application asked for, port 0 included; every other worker, and every
 * restarted one, binds the same ports), restarts a worker that dies with
 * exponential backoff, drains them all on SIGTERM/SIGINT, replaces them one
 * at a time on SIGHUP, and answers a worker's scrape with every worker's
 * metrics aggregated by prom-client's AggregatorRegistry. The primary serves
 * no calls itself.
 */
import cluster, { type Worker } from 'node:cluster';
import type { WorkerMessage, WorkerMetrics } from './messages';
import { isWorkerMessage, WORKER_SLOT_ENV } from './messages';

/** Where the workers listen, as the first worker reported it. */
export interface WorkersAddress {
  host: string;
  port: number | undefined;
  udpPort: number | undefined;
}

export interface SupervisorOptions {
  count: number;
  /** A worker told to stop gets this long (its drain delay plus shutdown timeout, and a margin) before SIGKILL. */
  stopTimeoutMs: number;
  /** Install SIGTERM/SIGINT (drain, exit) and SIGHUP (rolling restart) handlers. */
  handleSignals: boolean;
}

/** First restart delay; doubled per crash in a row, up to RESTART_MAX_MS. */
const RESTART_BASE_MS = 100;
const RESTART_MAX_MS = 10_000;
/** A worker that served this long before dying restarts at once: its crash is not part of a loop. */
const STABLE_MS = 10_000;
/** How long a gathering of metrics waits for slow workers before aggregating what came. */
const GATHER_TIMEOUT_MS = 2_000;

interface Slot {
  worker: Worker | undefined;
  /** Crashes in a row, for the backoff. */
  crashes: number;
  restart: NodeJS.Timeout | undefined;
}

interface PendingListen {
  index: number;
  resolve(address: WorkersAddress): void;
  reject(error: Error): void;
}

interface Gathering {
  from: Worker;
  id: number;
  waiting: Set<number>;
  collected: WorkerMetrics[];
  timer: NodeJS.Timeout;
}

function send(worker: Worker, message: WorkerMessage): void {
  if (worker.isConnected()) worker.send(message);
}

export class WorkerSupervisor {
  readonly #options: SupervisorOptions;
  readonly #slots: Slot[];
  /** Workers being replaced or stopped: their exit is expected. */
  readonly #retired = new Set<Worker>();
  readonly #started = new Map<number, number>();
  /** Per worker id: the listen indexes it has bound. */
  readonly #listened = new Map<number, Set<number>>();
  readonly #ports = new Map<number, WorkersAddress>();
  /** Per listen index: the worker binding it first, and the others waiting for its ports. */
  readonly #owners = new Map<number, { owner: Worker; queued: Worker[] }>();
  readonly #pending: PendingListen[] = [];
  readonly #gatherings = new Map<number, Gathering>();
  readonly #snapshots = new Map<number, unknown>();
  #listens = 0;
  #gatherSeq = 0;
  #stopping: Promise<void> | undefined = undefined;
  #rolling: Promise<void> | undefined = undefined;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    this.#slots = Array.from({ length: options.count }, () => ({ worker: undefined, crashes: 0, restart: undefined }));
    if (options.handleSignals) {
      const stop = (): void => {
        void this.close().then(() => process.exit(0));
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      process.on('SIGHUP', () => void this.rollingRestart().catch((error: unknown) => process.emitWarning(`rolling restart stopped: ${(error as Error).message}`, 'FwWorkersWarning')));
    }
  }

  /** The pids of the workers now serving. */
  pids(): number[] {
    return this.#slots.flatMap((slot) => (slot.worker?.process.pid === undefined ? [] : [slot.worker.process.pid]));
  }

  /** The primary's next listen: resolves once every worker has bound it (forking them on the first). */
  listen(): Promise<WorkersAddress> {
    if (this.#stopping !== undefined) return Promise.reject(new Error('listen(): the workers are shutting down'));
    const index = this.#listens++;
    const done = new Promise<WorkersAddress>((resolve, reject) => this.#pending.push({ index, resolve, reject }));
    if (index === 0) this.#slots.forEach((_, i) => this.#fork(i));
    else this.#settleListens();
    return done;
  }

  #fork(slotIndex: number): Worker {
    const slot = this.#slots[slotIndex]!;
    slot.restart = undefined;
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(slotIndex) });
    slot.worker = worker;
    this.#started.set(worker.id, Date.now());
    this.#listened.set(worker.id, new Set());
    worker.on('message', (message: unknown) => {
      if (isWorkerMessage(message)) this.#receive(worker, message);
    });
    worker.on('exit', (code, signal) => this.#exited(slotIndex, worker, code, signal));
    return worker;
  }

  #live(): Worker[] {
    return this.#slots.flatMap((slot) => (slot.worker === undefined || this.#retired.has(slot.worker) ? [] : [slot.worker]));
  }

  #receive(worker: Worker, message: WorkerMessage): void {
    switch (message.kind) {
      case 'bind-request':
        this.#bindRequest(worker, message.index);
        return;
      case 'listening':
        this.#bound(worker, message.index, { host: message.host, port: message.port, udpPort: message.udpPort });
        return;
      case 'metrics-request':
        this.#gather(worker, message.id);
        return;
      case 'metrics-collected':
        this.#collected(worker, message.id, message.metrics);
        return;
      case 'snapshot':
        this.#snapshots.set(worker.id, message.snapshot);
        for (const other of this.#live()) if (other !== worker) send(other, message);
        return;
      default:
        return;
    }
  }

  #bindRequest(worker: Worker, index: number): void {
    const known = this.#ports.get(index);
    if (known !== undefined) {
      send(worker, { fw: 'workers', kind: 'bind-reply', index, port: known.port, udpPort: known.udpPort });
      return;
    }
    const owning = this.#owners.get(index);
    if (owning === undefined) {
      this.#owners.set(index, { owner: worker, queued: [] });
      send(worker, { fw: 'workers', kind: 'bind-reply', index, port: undefined, udpPort: undefined });
    } else {
      owning.queued.push(worker);
    }
  }

  #bound(worker: Worker, index: number, address: WorkersAddress): void {
    this.#listened.get(worker.id)?.add(index);
    if (!this.#ports.has(index)) {
      this.#ports.set(index, address);
      const owning = this.#owners.get(index);
      this.#owners.delete(index);
      for (const queued of owning?.queued ?? []) this.#bindRequest(queued, index);
    }
    this.#settleListens();
  }

  /** True once the worker has bound every listen the primary asked for. */
  #up(worker: Worker): boolean {
    const listened = this.#listened.get(worker.id);
    if (listened === undefined) return false;
    for (let i = 0; i < this.#listens; i++) if (!listened.has(i)) return false;
    return true;
  }

  #settleListens(): void {
    for (let i = this.#pending.length - 1; i >= 0; i--) {
      const pending = this.#pending[i]!;
      const all = this.#slots.every((slot) => slot.worker !== undefined && this.#listened.get(slot.worker.id)?.has(pending.index) === true);
      const address = this.#ports.get(pending.index);
      if (all && address !== undefined) {
        this.#pending.splice(i, 1);
        pending.resolve(address);
      }
    }
  }

  #exited(slotIndex: number, worker: Worker, code: number | null, signal: string | null): void {
    const slot = this.#slots[slotIndex]!;
    const lived = Date.now() - (this.#started.get(worker.id) ?? Date.now());
    const wasUp = this.#up(worker);
    this.#started.delete(worker.id);
    this.#listened.delete(worker.id);
    this.#snapshots.delete(worker.id);
    for (const gathering of this.#gatherings.values()) {
      if (gathering.waiting.delete(worker.id) && gathering.waiting.size === 0) this.#aggregate(gathering);
    }
    // Another worker waiting for the ports this one was to bind first becomes the first.
    for (const [index, owning] of this.#owners) {
      if (owning.owner !== worker) continue;
      this.#owners.delete(index);
      for (const queued of owning.queued) this.#bindRequest(queued, index);
    }
    for (const other of this.#live()) if (other !== worker) send(other, { fw: 'workers', kind: 'worker-gone', worker: worker.id });
    const expected = this.#retired.delete(worker);
    if (slot.worker === worker) slot.worker = undefined;
    if (expected || this.#stopping !== undefined) return;
    const how = signal !== null ? `signal ${signal}` : `code ${String(code)}`;
    if (!wasUp && this.#pending.length > 0) {
      // A worker that cannot start (bad options, port taken) would crash-loop: fail the listen() instead.
      const error = new Error(`a worker exited with ${how} before it was listening; see its output above`);
      for (const pending of this.#pending.splice(0)) pending.reject(error);
      void this.close();
      return;
    }
    slot.crashes = lived >= STABLE_MS ? 0 : slot.crashes + 1;
    const delay = slot.crashes === 0 ? 0 : Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (slot.crashes - 1));
    process.emitWarning(`worker ${String(worker.process.pid)} exited with ${how}; restarting it in ${delay} ms`, 'FwWorkersWarning');
    slot.restart = setTimeout(() => this.#fork(slotIndex), delay);
  }

  #gather(from: Worker, id: number): void {
    const gid = ++this.#gatherSeq;
    const live = this.#live().filter((worker) => worker.isConnected());
    const gathering: Gathering = {
      from,
      id,
      waiting: new Set(live.map((worker) => worker.id)),
      collected: [],
      timer: setTimeout(() => this.#aggregate(gathering), GATHER_TIMEOUT_MS),
    };
    this.#gatherings.set(gid, gathering);
    for (const worker of live) send(worker, { fw: 'workers', kind: 'metrics-collect', id: gid });
    if (gathering.waiting.size === 0) this.#aggregate(gathering);
  }

  #collected(worker: Worker, gid: number, metrics: WorkerMetrics): void {
    const gathering = this.#gatherings.get(gid);
    if (gathering === undefined || !gathering.waiting.delete(worker.id)) return;
    gathering.collected.push(metrics);
    if (gathering.waiting.size === 0) this.#aggregate(gathering);
  }

  #aggregate(gathering: Gathering): void {
    clearTimeout(gathering.timer);
    for (const [gid, g] of this.#gatherings) if (g === gathering) this.#gatherings.delete(gid);
    // prom-client loads in the primary only when a worker is scraped.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { AggregatorRegistry } = require('prom-client') as typeof import('prom-client');
    const registry = AggregatorRegistry.aggregate(gathering.collected.map((m) => m.prometheus) as Parameters<typeof AggregatorRegistry.aggregate>[0]);
    void registry.metrics().then((text) => {
      send(gathering.from, { fw: 'workers', kind: 'metrics-aggregated', id: gathering.id, text, contentType: registry.contentType });
    });
  }

  /** Replaces the workers one at a time: a new one listens before the old one drains. */
  rollingRestart(): Promise<void> {
    if (this.#stopping !== undefined) return Promise.resolve();
    this.#rolling ??= this.#roll().finally(() => {
      this.#rolling = undefined;
    });
    return this.#rolling;
  }

  async #roll(): Promise<void> {
    for (let i = 0; i < this.#slots.length; i++) {
      if (this.#stopping !== undefined) return;
      const old = this.#slots[i]!.worker;
      if (old !== undefined) this.#retired.add(old);
      const fresh = this.#fork(i);
      await new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!this.#up(fresh)) return;
          fresh.off('message', check);
          fresh.off('exit', failed);
          resolve();
        };
        const failed = (): void => {
          fresh.off('message', check);
          reject(new Error(`the replacement worker exited before it was listening`));
        };
        fresh.on('message', check);
        fresh.once('exit', failed);
      });
      if (old !== undefined) await this.#stop(old);
    }
  }

  /** Asks a worker to drain and exit; SIGKILL past the stop timeout. */
  #stop(worker: Worker): Promise<void> {
    if (worker.isDead()) return Promise.resolve();
    this.#retired.add(worker);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => worker.process.kill('SIGKILL'), this.#options.stopTimeoutMs);
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      send(worker, { fw: 'workers', kind: 'shutdown' });
      // A worker without its IPC channel still drains on SIGTERM.
      if (!worker.isConnected()) worker.process.kill('SIGTERM');
    });
  }

  /** Drains every worker (each turns readiness false, waits its drain delay, drains) and resolves once all exited. */
  close(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const slot of this.#slots) clearTimeout(slot.restart);
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      await Promise.all(workers.map((worker) => this.#stop(worker)));
    })();
    return this.#stopping;
  }
}

let supervisor: WorkerSupervisor | undefined;

/** The process's supervisor (one per primary, however many servers listen with `workers`). */
export function workerSupervisor(options: SupervisorOptions): WorkerSupervisor {
  return (supervisor ??= new WorkerSupervisor(options));
}
