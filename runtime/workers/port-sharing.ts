/**
 * How a worker's sockets share the one port. On Linux (Node 22.12+ and 24)
 * every worker binds the port itself with SO_REUSEPORT (`reusePort`) and
 * `exclusive`, and the kernel spreads connections and datagrams over them;
 * elsewhere the worker leaves `exclusive` off and node:cluster's primary
 * holds the port and hands connections round-robin to the workers.
 */
import cluster from 'node:cluster';
import { WORKER_SLOT_ENV } from './messages';

/** True in a process no cluster primary forked (where `workers` starts the supervisor). */
export function isClusterPrimary(): boolean {
  return cluster.isPrimary;
}

/** This worker's cluster id (0 outside a worker). */
export function clusterWorkerId(): number {
  return cluster.worker?.id ?? 0;
}

/** True in a process the fw supervisor forked. */
export function isFwWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_SLOT_ENV] !== undefined;
}

/** Whether this Node on this OS has `reusePort` for `net` and `dgram` (Linux, Node 22.12+). */
export function hasReusePort(): boolean {
  if (process.platform !== 'linux') return false;
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 12);
}

/** Extra `server.listen()` options of this process: reusePort + exclusive in a worker on Linux, none otherwise. */
export function streamSharing(): { reusePort?: boolean; exclusive?: boolean } {
  return isFwWorker() && hasReusePort() ? { reusePort: true, exclusive: true } : {};
}

/** Extra `dgram.createSocket()` and `bind()` options, by the same rule. */
export function datagramSharing(): { reusePort?: boolean; exclusive?: boolean } {
  return streamSharing();
}
