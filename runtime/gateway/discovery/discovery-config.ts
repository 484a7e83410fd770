/**
 * `configureServiceDiscovery(config)` (spec 4.10 "Service discovery"): where
 * instances of each remote service are found, how calls are spread over them,
 * and how a client stays on one instance. `normalizeDiscoveryConfig` checks
 * everything once and fills defaults, so a bad config fails at configure time
 * with the key named, never on a call.
 */
import type { ChannelCredentials, ChannelOptions } from '@grpc/grpc-js';
import { isServiceDescriptor, type ServiceDescriptor, type StreamingMode } from '../../rpc/descriptor';
import type { CircuitBreakerSetting } from './circuit-breakers';

export type DiscoveryProvider = 'static' | 'dns' | 'etcd' | 'consul';
export type BalancingStrategy = 'round_robin' | 'least_connections' | 'weighted';

/** One instance of a service: a gRPC endpoint. */
export interface InstanceAddress {
  host: string;
  port: number;
  /** Relative share for `weighted` (default 1). */
  weight?: number;
  /** Port of the HTTP health endpoint when it is not `port` (plain gRPC servers speak no HTTP/1.1). */
  healthPort?: number;
}

export interface DiscoveredServiceConfig {
  /** Default `round_robin`. */
  strategy?: BalancingStrategy;
  /**
   * Polled on each instance: an HTTP path (`GET http://host:(healthPort ?? port)<path>`, 2xx = healthy),
   * or `grpc` / `grpc:<service>` for the standard gRPC health Check (SERVING = healthy).
   */
  healthCheck?: string;
  /** A fixed list, or `auto-discover` to ask the provider. Default `auto-discover` (a list for `static`). */
  instances?: readonly InstanceAddress[] | 'auto-discover';
  /** Streaming mode per method, for services the gateway has no descriptor of. Default `none` (unary). */
  methods?: Readonly<Record<string, StreamingMode>>;
  /**
   * The fw-gen descriptor of a service served only by discovered instances
   * (`UserServiceDescriptor`): the gateway then serves it like a hosted
   * generated service — proto3 JSON decoding, protovalidate rules, HTTP rules,
   * binary codecs to the instance on the method's real gRPC path, call kinds
   * and `idempotency_level` from the proto.
   */
  descriptor?: ServiceDescriptor;
  /** Methods that may be retried and hedged, for services without a descriptor (a descriptor's `idempotency_level` says it otherwise). */
  idempotentMethods?: readonly string[];
  /**
   * Services with a `descriptor`: where binary gRPC requests are checked
   * against their `buf.validate` rules. `gateway` (default): at the gateway,
   * which must then decode them. `instance`: the instances check them (fw's
   * `server.grpc()` always does), so gRPC calls pass their bytes through
   * undecoded; JSON callers (HTTP, WebSocket…) are still checked at the gateway.
   */
  validation?: 'gateway' | 'instance';
}

export interface RoutingConfig {
  http?: { sticky_sessions?: boolean; session_header?: string };
  websocket?: { connection_affinity?: boolean };
  /** Strategy for calls arriving over gRPC; `pick_first` pins each gRPC client connection to one instance. */
  grpc?: { load_balancing?: BalancingStrategy | 'pick_first' };
}

export interface HealthCheckOptions {
  /** Default 5000. */
  intervalMs?: number;
  /** Default 2000. */
  timeoutMs?: number;
  /** Consecutive failures that take an instance out of rotation. Default 2. */
  unhealthyThreshold?: number;
  /** Consecutive successes that bring it back. Default 1. */
  healthyThreshold?: number;
}

export interface DnsOptions {
  /** Resolver addresses (`ip` or `ip:port`); default the system's. */
  servers?: readonly string[];
  /** SRV name of a service. Default `_grpc._tcp.<service>` (+ `.<domain>` when `domain` is set). */
  srvName?: (service: string) => string;
  domain?: string;
  /** Re-resolve period. Default 30000. */
  refreshIntervalMs?: number;
}

export interface EtcdOptions {
  /** etcd endpoints, e.g. `http://127.0.0.1:2379`. */
  hosts: string | readonly string[];
  /** Key prefix; instances live at `<prefix><service>/<id>` with a JSON InstanceAddress value. Default `/fw/services/`. */
  prefix?: string;
  /** How long `ready()` (and the gateway's `listen()`) waits for a first answer from an unreachable etcd before going on without instances. Default 5000. */
  startTimeoutMs?: number;
  /** While etcd cannot be reached, the instance list is read again this often, in ms. Default 500. */
  retryIntervalMs?: number;
}

export interface ConsulOptions {
  /** Consul HTTP API base URL. Default `http://127.0.0.1:8500`. */
  url?: string;
  /** Blocking-query wait, seconds. Default 30. */
  waitSeconds?: number;
  /** Sent as `X-Consul-Token`. */
  token?: string;
}

export interface ForwardingOptions {
  /** Default insecure (plain h2c), as inside a cluster network. */
  credentials?: ChannelCredentials;
  channelOptions?: ChannelOptions;
  /**
   * Deadline of each forwarded unary call in ms; a caller's own sooner deadline
   * wins, and is sent on to the instance. Streams are bounded by the caller's
   * deadline only. Default 10 000.
   */
  deadlineMs?: number;
  /**
   * Retries of idempotent methods (`idempotency_level` IDEMPOTENT or
   * NO_SIDE_EFFECTS) on another instance after UNAVAILABLE or an unresponsive
   * instance; calls that never reached an instance's handler are always
   * retried elsewhere, whatever this says. Default `{ maxAttempts: 3 }`.
   */
  retry?: { maxAttempts?: number } | false;
  /** Hedging of idempotent unary methods: another attempt elsewhere after `delayMs` without an answer; the first answer wins. Default off. */
  hedging?: { delayMs: number; maxAttempts?: number } | false;
  /** Bulkhead: calls in flight per instance; a full instance is skipped, all full is RESOURCE_EXHAUSTED. Default `{ maxInFlight: 1000 }`. */
  bulkhead?: { maxInFlight?: number } | false;
  /** Per-instance circuit breaker (circuit-breakers/). Default `consecutive_failures` (5 failures, 2000 ms open, 1 trial call). */
  circuitBreaker?: CircuitBreakerSetting;
  /**
   * Liveness: when an instance with calls in flight has answered nothing for
   * `stallMs`, it is sent an HTTP/2 PING; no ack within `pingTimeoutMs` opens
   * its breaker and sends its idempotent calls elsewhere. Plain h2c channels
   * only (not with custom `credentials`). Default `{ stallMs: 500, pingTimeoutMs: 800 }`: a frozen instance is out of rotation in about 1.5 s.
   */
  liveness?: { stallMs?: number; pingTimeoutMs?: number } | false;
  /** Context header names copied to the instance as gRPC metadata. Default `['authorization']` (the trace id is always sent). */
  forwardHeaders?: readonly string[];
}

export interface ServiceDiscoveryConfig {
  provider: DiscoveryProvider;
  services: Readonly<Record<string, DiscoveredServiceConfig>>;
  routing?: RoutingConfig;
  healthCheck?: HealthCheckOptions;
  dns?: DnsOptions;
  etcd?: EtcdOptions;
  consul?: ConsulOptions;
  forwarding?: ForwardingOptions;
}

/** Thrown for a discovery configuration that cannot work; names the offending key. */
export class DiscoveryConfigError extends Error {
  override name = 'DiscoveryConfigError';
}

const PROVIDERS = new Set(['static', 'dns', 'etcd', 'consul']);
const STRATEGIES = new Set(['round_robin', 'least_connections', 'weighted']);
const MODES = new Set(['none', 'server', 'client', 'bidirectional']);

/** Checks one instance address; `where` names it in the error. */
export function checkInstance(value: unknown, where: string): InstanceAddress {
  const v = value as Partial<InstanceAddress> | null;
  if (typeof v !== 'object' || v === null) throw new DiscoveryConfigError(`${where}: expected {host, port, weight?}`);
  if (typeof v.host !== 'string' || v.host === '') throw new DiscoveryConfigError(`${where}.host: expected a non-empty string`);
  if (!Number.isInteger(v.port) || (v.port as number) < 1 || (v.port as number) > 65535) throw new DiscoveryConfigError(`${where}.port: expected an integer 1-65535`);
  if (v.weight !== undefined && !(typeof v.weight === 'number' && Number.isFinite(v.weight) && v.weight > 0)) {
    throw new DiscoveryConfigError(`${where}.weight: expected a positive number`);
  }
  if (v.healthPort !== undefined && !(Number.isInteger(v.healthPort) && v.healthPort > 0 && v.healthPort < 65536)) {
    throw new DiscoveryConfigError(`${where}.healthPort: expected an integer 1-65535`);
  }
  return { host: v.host, port: v.port as number, weight: v.weight ?? 1, healthPort: v.healthPort };
}

/** Validates `config`; throws DiscoveryConfigError naming the first bad key. */
export function validateDiscoveryConfig(config: ServiceDiscoveryConfig): void {
  if (typeof config !== 'object' || config === null) throw new DiscoveryConfigError('config: expected {provider, services, routing?}');
  if (!PROVIDERS.has(config.provider)) throw new DiscoveryConfigError(`provider: unknown provider "${String(config.provider)}" (known: static, dns, etcd, consul)`);
  if (typeof config.services !== 'object' || config.services === null) throw new DiscoveryConfigError('services: expected a map of service name to {strategy, healthCheck, instances}');
  for (const [name, svc] of Object.entries(config.services)) {
    const where = `services.${name}`;
    if (svc.strategy !== undefined && !STRATEGIES.has(svc.strategy)) {
      throw new DiscoveryConfigError(`${where}.strategy: unknown strategy "${String(svc.strategy)}" (known: round_robin, least_connections, weighted)`);
    }
    const hc = svc.healthCheck;
    if (hc !== undefined && (typeof hc !== 'string' || !(hc.startsWith('/') || hc === 'grpc' || hc.startsWith('grpc:')))) {
      throw new DiscoveryConfigError(`${where}.healthCheck: expected an HTTP path starting with "/", "grpc" or "grpc:<service>"`);
    }
    const instances = svc.instances ?? 'auto-discover';
    if (instances === 'auto-discover') {
      if (config.provider === 'static') throw new DiscoveryConfigError(`${where}.instances: the static provider needs a list of instances`);
    } else if (Array.isArray(instances)) {
      instances.forEach((inst, i) => checkInstance(inst, `${where}.instances[${i}]`));
    } else {
      throw new DiscoveryConfigError(`${where}.instances: expected a list of {host, port, weight} or "auto-discover"`);
    }
    if (svc.descriptor !== undefined && !isServiceDescriptor(svc.descriptor)) {
      throw new DiscoveryConfigError(`${where}.descriptor: expected a service descriptor generated by fw-gen (e.g. UserServiceDescriptor)`);
    }
    if (svc.validation !== undefined && svc.validation !== 'gateway' && svc.validation !== 'instance') {
      throw new DiscoveryConfigError(`${where}.validation: expected "gateway" or "instance", got ${JSON.stringify(svc.validation)}`);
    }
    const idem = svc.idempotentMethods;
    if (idem !== undefined && !(Array.isArray(idem) && idem.every((m) => typeof m === 'string'))) {
      throw new DiscoveryConfigError(`${where}.idempotentMethods: expected a list of method names`);
    }
    for (const [method, mode] of Object.entries(svc.methods ?? {})) {
      if (!MODES.has(mode)) throw new DiscoveryConfigError(`${where}.methods.${method}: unknown streaming mode "${String(mode)}"`);
    }
  }
  const lb = config.routing?.grpc?.load_balancing;
  if (lb !== undefined && !STRATEGIES.has(lb) && lb !== 'pick_first') {
    throw new DiscoveryConfigError(`routing.grpc.load_balancing: unknown policy "${String(lb)}" (known: round_robin, least_connections, weighted, pick_first)`);
  }
  if (config.provider === 'etcd' && (config.etcd === undefined || config.etcd.hosts === undefined || config.etcd.hosts.length === 0)) {
    const needs = Object.values(config.services).some((s) => (s.instances ?? 'auto-discover') === 'auto-discover');
    if (needs) throw new DiscoveryConfigError('etcd.hosts: the etcd provider needs at least one endpoint');
  }
}
