/**
 * The three strategies of spec 4.10, each picking one instance from the
 * candidates in rotation. All are deterministic, so distributions are exact:
 * round robin cycles; least_connections takes the fewest calls in flight,
 * breaking ties in rotation so idle instances share evenly; weighted is
 * smooth weighted round robin (nginx's), which spreads each instance's share
 * evenly through the cycle instead of in bursts.
 */
import type { BalancingStrategy } from './discovery-config';
import type { ServiceInstance } from './service-instance';

export interface Balancer {
  /** One of `candidates` (non-empty). */
  pick(candidates: readonly ServiceInstance[]): ServiceInstance;
}

class RoundRobin implements Balancer {
  #next = 0;

  pick(candidates: readonly ServiceInstance[]): ServiceInstance {
    const i = this.#next % candidates.length;
    this.#next = (i + 1) % 0x7fffffff;
    return candidates[i] as ServiceInstance;
  }
}

class LeastConnections implements Balancer {
  #next = 0;

  pick(candidates: readonly ServiceInstance[]): ServiceInstance {
    const n = candidates.length;
    const start = this.#next % n;
    let best = candidates[start] as ServiceInstance;
    for (let k = 1; k < n; k++) {
      const c = candidates[(start + k) % n] as ServiceInstance;
      if (c.inFlight < best.inFlight) best = c;
    }
    this.#next = (start + 1) % 0x7fffffff;
    return best;
  }
}

class SmoothWeighted implements Balancer {
  pick(candidates: readonly ServiceInstance[]): ServiceInstance {
    let total = 0;
    let best = candidates[0] as ServiceInstance;
    let bestWeight = -Infinity;
    for (const c of candidates) {
      c.currentWeight += c.weight;
      total += c.weight;
      if (c.currentWeight > bestWeight) {
        bestWeight = c.currentWeight;
        best = c;
      }
    }
    best.currentWeight -= total;
    return best;
  }
}

export function createBalancer(strategy: BalancingStrategy): Balancer {
  switch (strategy) {
    case 'round_robin': return new RoundRobin();
    case 'least_connections': return new LeastConnections();
    case 'weighted': return new SmoothWeighted();
  }
}
