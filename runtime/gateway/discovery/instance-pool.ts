/**
 * The instances of one discovered service: which are in rotation, which one
 * a call goes to, and which instance each session / connection is pinned to.
 * Provider updates keep existing instance objects (and their channels, counts
 * and health) by `host:port`; only added and removed ones change.
 */
import { createBalancer, type Balancer } from './balancers';
import type { BalancingStrategy, InstanceAddress } from './discovery-config';
import { instanceKey, ServiceInstance } from './service-instance';

/** Pins kept per service; the oldest is forgotten first. */
const MAX_AFFINITY_ENTRIES = 10_000;

export class InstancePool {
  readonly service: string;
  #instances: ServiceInstance[] = [];
  #healthy: ServiceInstance[] = [];
  readonly #balancers = new Map<BalancingStrategy, Balancer>();
  readonly #affinity = new Map<string, ServiceInstance>();
  readonly #onRemoved: (instance: ServiceInstance) => void;
  readonly #onAdded: (instance: ServiceInstance) => void;

  constructor(service: string, hooks: { onAdded(i: ServiceInstance): void; onRemoved(i: ServiceInstance): void }) {
    this.service = service;
    this.#onAdded = hooks.onAdded;
    this.#onRemoved = hooks.onRemoved;
  }

  get instances(): readonly ServiceInstance[] {
    return this.#instances;
  }

  /** Replaces the instance list with `addresses` (the provider's latest view). */
  update(addresses: readonly InstanceAddress[]): void {
    const previous = new Map(this.#instances.map((i) => [i.key, i]));
    const next: ServiceInstance[] = [];
    const added: ServiceInstance[] = [];
    for (const address of addresses) {
      const key = instanceKey(address);
      if (next.some((i) => i.key === key)) continue;
      const existing = previous.get(key);
      if (existing !== undefined) {
        existing.weight = address.weight ?? 1;
        existing.healthPort = address.healthPort;
        previous.delete(key);
        next.push(existing);
      } else {
        const instance = new ServiceInstance(address);
        next.push(instance);
        added.push(instance);
      }
    }
    this.#instances = next;
    for (const gone of previous.values()) {
      gone.removed = true;
      this.#onRemoved(gone);
    }
    if (previous.size > 0) {
      for (const [k, v] of this.#affinity) if (v.removed) this.#affinity.delete(k);
    }
    this.refreshRotation();
    for (const instance of added) this.#onAdded(instance);
  }

  /** Recomputes the healthy set after a health change. */
  refreshRotation(): void {
    this.#healthy = this.#instances.filter((i) => i.healthy);
  }

  /**
   * The instance for the next call: the pinned one for `affinityKey` while it
   * is healthy and admitted, else one chosen by `strategy` among healthy
   * instances not in `exclude` whose circuit breaker admits calls and that
   * have fewer than `maxInFlight` calls in flight (the bulkhead). When health
   * checks have taken every instance out, all of them are tried rather than
   * failing every call (a health endpoint can be wrong). Undefined: none can
   * take the call ({@link InstancePool.refusal} says why).
   */
  pick(strategy: BalancingStrategy, affinityKey: string | undefined, exclude: readonly ServiceInstance[] | undefined, maxInFlight = Infinity): ServiceInstance | undefined {
    const admitted = (i: ServiceInstance): boolean => i.inFlight < maxInFlight && i.breaker.admits() && (exclude === undefined || !exclude.includes(i));
    if (affinityKey !== undefined) {
      const pinned = this.#affinity.get(affinityKey);
      if (pinned !== undefined && pinned.healthy && !pinned.removed && admitted(pinned)) {
        pinned.picked++;
        return pinned;
      }
    }
    let candidates: readonly ServiceInstance[] = this.#healthy.length > 0 ? this.#healthy : this.#instances;
    if (!candidates.every(admitted)) {
      candidates = candidates.filter(admitted);
      if (candidates.length === 0) candidates = this.#instances.filter(admitted);
    }
    if (candidates.length === 0) return undefined;
    const chosen = this.#balancer(strategy).pick(candidates);
    chosen.picked++;
    if (affinityKey !== undefined) {
      if (this.#affinity.size >= MAX_AFFINITY_ENTRIES && !this.#affinity.has(affinityKey)) {
        const oldest = this.#affinity.keys().next().value;
        if (oldest !== undefined) this.#affinity.delete(oldest);
      }
      this.#affinity.set(affinityKey, chosen);
    }
    return chosen;
  }

  /** Why {@link pick} found no instance (other than those in `exclude`): 'none', 'circuit' (all open) or 'bulkhead' (all full). */
  refusal(exclude: readonly ServiceInstance[] | undefined): 'none' | 'circuit' | 'bulkhead' {
    const left = this.#instances.filter((i) => exclude === undefined || !exclude.includes(i));
    if (left.length === 0) return 'none';
    // Some circuit admits calls, so what stopped them is the in-flight cap.
    return left.some((i) => i.breaker.admits()) ? 'bulkhead' : 'circuit';
  }

  /** Removes every instance (discovery is closing). */
  clear(): void {
    this.update([]);
  }

  #balancer(strategy: BalancingStrategy): Balancer {
    let b = this.#balancers.get(strategy);
    if (b === undefined) {
      b = createBalancer(strategy);
      this.#balancers.set(strategy, b);
    }
    return b;
  }
}
