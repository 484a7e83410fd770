/**
 * Finds frozen instances fast, without a timer per call: a few times a
 * second it looks at every instance with calls in flight; one that has
 * answered nothing for `stallMs` gets an HTTP/2 PING (h2-unary-channel.ts).
 * No ack within `pingTimeoutMs` trips its circuit breaker and wakes the
 * idempotent calls waiting on it, which go elsewhere. It also probes
 * instances whose breaker has been open long enough: alive ones go
 * half-open and get trial calls; a still-frozen one stays open, so no real
 * call is spent on it.
 */
import type { ForwardingPolicy } from './forwarding-policy';
import type { InstancePool } from './instance-pool';
import type { ServiceInstance } from './service-instance';

/** Pings an instance; undefined when it cannot be pinged (custom credentials). */
export type InstancePinger = ((instance: ServiceInstance, timeoutMs: number, done: (alive: boolean) => void) => void) | undefined;

export class LivenessWatchdog {
  readonly #pools: Iterable<InstancePool>;
  readonly #policy: ForwardingPolicy;
  readonly #ping: InstancePinger;
  readonly #unresponsive: (pool: InstancePool, instance: ServiceInstance, reason: string) => void;
  readonly #timer: NodeJS.Timeout;

  constructor(pools: Iterable<InstancePool>, policy: ForwardingPolicy, ping: InstancePinger, unresponsive: (pool: InstancePool, instance: ServiceInstance, reason: string) => void) {
    this.#pools = pools;
    this.#policy = policy;
    this.#ping = ping;
    this.#unresponsive = unresponsive;
    const tick = Math.max(20, Math.min(250, (policy.stallMs ?? 1000) / 2));
    this.#timer = setInterval(() => this.#check(), tick);
    this.#timer.unref();
  }

  close(): void {
    clearInterval(this.#timer);
  }

  #check(): void {
    const now = Date.now();
    const stallMs = this.#policy.stallMs;
    for (const pool of this.#pools) {
      for (const instance of pool.instances) {
        if (instance.probing || instance.removed) continue;
        if (instance.breaker.probeDue(now)) this.#probeOpen(instance);
        else if (stallMs !== undefined && this.#ping !== undefined && instance.breaker.state !== 'open' && instance.inFlight > 0 && now - instance.lastProgressAt >= stallMs) this.#probeStalled(pool, instance, now - instance.lastProgressAt);
      }
    }
  }

  #probeStalled(pool: InstancePool, instance: ServiceInstance, silentMs: number): void {
    instance.probing = true;
    this.#ping?.(instance, this.#policy.pingTimeoutMs, (alive) => {
      instance.probing = false;
      if (alive) {
        // Up, only slow: its calls keep waiting (up to their deadline).
        instance.lastProgressAt = Date.now();
        return;
      }
      this.#unresponsive(pool, instance, `no answer for ${Math.round(silentMs)} ms with ${instance.inFlight} call(s) in flight, and no HTTP/2 PING ack within ${this.#policy.pingTimeoutMs} ms`);
    });
  }

  #probeOpen(instance: ServiceInstance): void {
    if (this.#ping === undefined) {
      instance.breaker.halfOpen('open period over');
      return;
    }
    instance.probing = true;
    this.#ping(instance, this.#policy.pingTimeoutMs, (alive) => {
      instance.probing = false;
      if (alive) instance.breaker.halfOpen('answered a liveness ping');
      else instance.breaker.trip(`still no HTTP/2 PING ack within ${this.#policy.pingTimeoutMs} ms`);
    });
  }
}
