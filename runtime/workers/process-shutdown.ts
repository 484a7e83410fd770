/**
 * The servers of this process that fw stops on a termination signal (or, in
 * a worker, on the supervisor's word): each one's shutdown turns readiness
 * false, waits its drain delay and drains; once all have, the process exits.
 * One registry per process, so a gateway and an app in the same entry script
 * drain together.
 */

/** A server fw drains on shutdown. */
export interface Stoppable {
  /** Readiness false, the drain delay, then `close()`; resolves once drained. */
  shutdown(): Promise<void>;
}

const servers = new Set<Stoppable>();
let stopping: Promise<void> | undefined;
let installed = false;

/** Adds a server to drain when the process is told to stop. */
export function registerStoppable(server: Stoppable): void {
  servers.add(server);
}

/** Forgets a server (it closed by itself). */
export function unregisterStoppable(server: Stoppable): void {
  servers.delete(server);
}

/** Drains every registered server, then exits the process with code 0 (once, however often asked). */
export function stopProcess(): Promise<void> {
  stopping ??= Promise.allSettled([...servers].map((server) => server.shutdown())).then(() => {
    process.exit(0);
  });
  return stopping;
}

/** fw handles SIGTERM and SIGINT from now on: drain every registered server, then exit. */
export function handleTerminationSignals(): void {
  if (installed) return;
  installed = true;
  const stop = (): void => void stopProcess();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
