/**
 * Active health checks: every `intervalMs`, `GET http://host:(healthPort ??
 * port)<healthCheck>` on each instance (a 2xx within `timeoutMs` is a pass),
 * or, for `grpc` / `grpc:<service>`, the standard gRPC health Check on the
 * instance's channel (SERVING is a pass).
 * `unhealthyThreshold` consecutive failures take an instance out of rotation,
 * `healthyThreshold` consecutive passes bring it back. A round never overlaps
 * the previous one of the same service, and timers never keep the process up.
 */
import http from 'node:http';
import type { Client } from '@grpc/grpc-js';
import type { HealthCheckOptions } from './discovery-config';
import { probeGrpcHealth } from './grpc-health-probe';
import type { InstancePool } from './instance-pool';
import type { ServiceInstance } from './service-instance';

interface Watched {
  pool: InstancePool;
  path: string;
  running: Promise<void> | undefined;
  timer: NodeJS.Timeout;
}

export class HealthChecker {
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #unhealthyThreshold: number;
  readonly #healthyThreshold: number;
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  readonly #watched: Watched[] = [];
  readonly #channelOf: (instance: ServiceInstance) => Client;
  #closed = false;

  /** `channelOf` gives an instance's gRPC channel, for `grpc` checks. */
  constructor(options: HealthCheckOptions = {}, channelOf: (instance: ServiceInstance) => Client) {
    this.#channelOf = channelOf;
    this.#intervalMs = options.intervalMs ?? 5000;
    this.#timeoutMs = options.timeoutMs ?? 2000;
    this.#unhealthyThreshold = options.unhealthyThreshold ?? 2;
    this.#healthyThreshold = options.healthyThreshold ?? 1;
  }

  /** Starts polling `path` on every instance of `pool` (first round at once). */
  watch(pool: InstancePool, path: string): void {
    const entry: Watched = { pool, path, running: undefined, timer: setInterval(() => void this.#round(entry), this.#intervalMs) };
    entry.timer.unref();
    this.#watched.push(entry);
    void this.#round(entry);
  }

  /** Runs a round on every watched service now (or waits for the one in progress). */
  async checkNow(): Promise<void> {
    await Promise.all(this.#watched.map((w) => this.#round(w)));
  }

  close(): void {
    this.#closed = true;
    for (const w of this.#watched) clearInterval(w.timer);
    this.#agent.destroy();
  }

  #round(entry: Watched): Promise<void> {
    if (entry.running !== undefined) return entry.running;
    const run = Promise.all(entry.pool.instances.map(async (instance) => this.#apply(entry.pool, instance, await this.#probe(instance, entry.path)))).then(
      () => undefined,
    );
    entry.running = run.finally(() => {
      entry.running = undefined;
    });
    return entry.running;
  }

  #probe(instance: ServiceInstance, path: string): Promise<boolean> {
    if (this.#closed) return Promise.resolve(instance.healthy);
    if (path === 'grpc' || path.startsWith('grpc:')) {
      return probeGrpcHealth(this.#channelOf(instance), path === 'grpc' ? '' : path.slice(5), this.#timeoutMs);
    }
    return new Promise((resolve) => {
      const req = http.get({ host: instance.host, port: instance.healthPort ?? instance.port, path, agent: this.#agent, timeout: this.#timeoutMs }, (res) => {
        res.resume();
        const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
        res.on('end', () => resolve(ok));
        res.on('error', () => resolve(false));
      });
      req.on('timeout', () => req.destroy(new Error('health check timed out')));
      req.on('error', () => resolve(false));
    });
  }

  #apply(pool: InstancePool, instance: ServiceInstance, ok: boolean): void {
    if (instance.removed || this.#closed) return;
    if (ok) {
      instance.consecutiveFailures = 0;
      instance.consecutiveSuccesses++;
      if (!instance.healthy && instance.consecutiveSuccesses >= this.#healthyThreshold) {
        instance.healthy = true;
        pool.refreshRotation();
      }
    } else {
      instance.consecutiveSuccesses = 0;
      instance.consecutiveFailures++;
      if (instance.healthy && instance.consecutiveFailures >= this.#unhealthyThreshold) {
        instance.healthy = false;
        pool.refreshRotation();
      }
    }
  }
}
