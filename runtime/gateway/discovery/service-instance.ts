/**
 * One live instance of a discovered service, with everything the balancers
 * and health checker keep about it. Every field is declared in the
 * constructor: instances are read on every call, so their shape stays fixed.
 */
import type { Client } from '@grpc/grpc-js';
import type { InstanceAddress } from './discovery-config';
import { CLOSED_BREAKER, type CircuitBreaker, type CircuitState } from './circuit-breakers';
import type { H2UnaryChannel } from './h2-unary-channel';

export class ServiceInstance {
  /** `host:port`, the identity used to keep an instance across provider updates. */
  readonly key: string;
  readonly host: string;
  readonly port: number;
  weight: number;
  healthPort: number | undefined;
  /** In rotation. Health checks move it; a new instance starts healthy. */
  healthy: boolean;
  /** Calls forwarded to it and not yet finished (least_connections). */
  inFlight: number;
  /** Smooth weighted round robin running weight. */
  currentWeight: number;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  /** Calls it has been picked for (for observation and tests). */
  picked: number;
  /** Left the provider's list: never picked again, its channel is closed. */
  removed: boolean;
  /** The gRPC channel to it, opened on first call. */
  client: Client | undefined;
  /** The lean HTTP/2 channel for unary calls on plain channels, opened on first call. */
  h2: H2UnaryChannel | undefined;
  /** Whether calls may go to it now (circuit-breakers/); discovery sets its own when the instance joins. */
  breaker: CircuitBreaker;
  /** When it last answered anything (or took its first call after an idle spell), ms epoch: the liveness watchdog's clock. */
  lastProgressAt: number;
  /** A liveness ping to it is in flight. */
  probing: boolean;
  /** Calls that want to know when it is found unresponsive (idempotent calls, to go elsewhere). */
  readonly stallWaiters: Set<() => void>;

  constructor(address: InstanceAddress) {
    this.key = instanceKey(address);
    this.host = address.host;
    this.port = address.port;
    this.weight = address.weight ?? 1;
    this.healthPort = address.healthPort;
    this.healthy = true;
    this.inFlight = 0;
    this.currentWeight = 0;
    this.consecutiveFailures = 0;
    this.consecutiveSuccesses = 0;
    this.picked = 0;
    this.removed = false;
    this.client = undefined;
    this.h2 = undefined;
    this.breaker = CLOSED_BREAKER;
    this.lastProgressAt = 0;
    this.probing = false;
    this.stallWaiters = new Set();
  }

  /** `host:port` for grpc-js, IPv6 literals bracketed. */
  get target(): string {
    return this.host.includes(':') && !this.host.startsWith('[') ? `[${this.host}]:${this.port}` : `${this.host}:${this.port}`;
  }
}

/** Identity of an address across updates. */
export function instanceKey(address: InstanceAddress): string {
  return `${address.host}:${address.port}`;
}

/** A read-only view of an instance, for `discovery.instances(service)`. */
export interface InstanceInfo {
  host: string;
  port: number;
  weight: number;
  healthy: boolean;
  inFlight: number;
  picked: number;
  /** Its circuit breaker's state: `open` instances get no calls. */
  circuit: CircuitState;
}
