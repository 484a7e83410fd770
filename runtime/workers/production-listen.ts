/**
 * How a server listens under the production options, one rule for the
 * gateway, an fw app and `server.grpc()`. In the cluster primary of
 * `workers` it starts the supervisor, which forks the workers, and binds
 * nothing itself. In a worker it asks the supervisor which ports to bind
 * (the first worker's), registers the server for the drain on shutdown and
 * reports the ports it bound. Alone, it binds what it was asked for, and
 * drains and exits on SIGTERM only with `handleSignals: true`.
 */
import { drainDelay, workerCount, type ProductionOptions } from './production-options';
import { hasReusePort, isClusterPrimary, isFwWorker } from './port-sharing';
import type { Stoppable } from './process-shutdown';
import type { WorkerSupervisor, WorkersAddress } from './supervisor';
import type { WorkerLink } from './worker-link';

/** Ports the supervisor assigned to this worker's listen: undefined means "bind what the application asked for". */
export interface AssignedPorts {
  port: number | undefined;
  udpPort: number | undefined;
}

export interface ProductionListen {
  options: ProductionOptions;
  /** The server's shutdown timeout (ms): with the drain delay, how long a worker may take to stop before it is killed. */
  shutdownTimeoutMs(): number;
  /** What fw drains on SIGTERM, or on the supervisor's word in a worker (the same object every listen). */
  stoppable: Stoppable;
  /**
   * True when the server cannot bind with `reusePort` itself (grpc-js's
   * server): its workers then share the port through node:cluster's primary,
   * as every server does where the OS has no `reusePort`.
   */
  clusterShared?: boolean;
  /**
   * Binds this process's sockets, the assigned ports winning over the
   * application's; resolves where it listens. `link` is the worker's link to
   * its supervisor (undefined outside a worker).
   */
  bind(assigned: AssignedPorts, link: WorkerLink | undefined): Promise<WorkersAddress>;
}

/** Where the service listens; `supervisor` is set in the primary of `workers`, which bound nothing itself. */
export interface ProductionListening {
  address: WorkersAddress;
  supervisor: WorkerSupervisor | undefined;
}

/** A worker told to stop gets its drain delay plus shutdown timeout, and this margin, before SIGKILL. */
const STOP_MARGIN_MS = 5_000;

/** Listens as the supervisor, as a worker or alone, by the options and the process this is. */
export async function listenInProduction(how: ProductionListen): Promise<ProductionListening> {
  const workers = workerCount(how.options.workers);
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (workers !== undefined && isClusterPrimary()) {
    const { workerSupervisor } = require('./supervisor') as typeof import('./supervisor');
    const stopTimeoutMs = drainDelay(how.options.drainDelay) + how.shutdownTimeoutMs() + STOP_MARGIN_MS;
    const supervisor = workerSupervisor({ count: workers, stopTimeoutMs, handleSignals: how.options.handleSignals !== false });
    return { address: await supervisor.listen(), supervisor };
  }
  const inWorker = isFwWorker();
  if (inWorker || how.options.handleSignals === true) {
    const shutdown = require('./process-shutdown') as typeof import('./process-shutdown');
    shutdown.registerStoppable(how.stoppable);
    shutdown.handleTerminationSignals();
  }
  if (!inWorker) return { address: await how.bind({ port: undefined, udpPort: undefined }, undefined), supervisor: undefined };
  const link = (require('./worker-link') as typeof import('./worker-link')).workerLink();
  /* eslint-enable @typescript-eslint/no-require-imports */
  const assigned = await link.nextBind();
  // Through the cluster's primary every worker asks for what the application asked for (port 0
  // included): the primary keeps one socket per request and hands each worker the same port.
  const shared = how.clusterShared === true || !hasReusePort();
  const address = await how.bind(shared ? { port: undefined, udpPort: undefined } : { port: assigned.port, udpPort: assigned.udpPort }, link);
  link.listening(assigned.index, address);
  return { address, supervisor: undefined };
}
