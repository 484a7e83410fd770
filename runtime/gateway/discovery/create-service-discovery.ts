/**
 * `createServiceDiscovery(config, options)`: the RemoteServiceResolver behind
 * `gateway.configureServiceDiscovery`. It keeps one instance pool per
 * configured service, fed by the provider (static lists, DNS SRV, etcd,
 * Consul), pruned by health checks, circuit breakers and the liveness
 * watchdog, and resolves `service.method` to a handler that forwards the
 * call to a chosen instance over gRPC. Provider outages are reported (event,
 * warning, `status()`) while the last-known instances keep serving.
 */
import type { RequestContext } from '../../core/request-context';
import type { MethodDescriptor, ServiceDescriptor } from '../../rpc/descriptor';
import { gatesOf } from '../../rpc/lazy-gates';
import type { RemoteMethod, RemoteServiceResolver } from '../extension-points';
import { PASS_THROUGH, type PassThroughSpec } from '../pass-through';
import { DiscoveryConfigError, validateDiscoveryConfig, type BalancingStrategy, type InstanceAddress, type ServiceDiscoveryConfig } from './discovery-config';
import { LOGGED_DECISIONS, type DiscoveryDecision, type DiscoveryEvent } from './forwarding-events';
import { forwardingPolicy } from './forwarding-policy';
import { channelOf, closeChannels, createRemoteMethod, h2ChannelOf, usesLeanUnary, type CallRouter, type WireCodec } from './grpc-forwarder';
import { HealthChecker } from './health-checker';
import { InstancePool } from './instance-pool';
import { LivenessWatchdog } from './liveness-watchdog';
import type { InstanceSource } from './providers/instance-source';
import type { InstanceInfo, ServiceInstance } from './service-instance';

export interface ServiceDiscoveryOptions {
  /** The generated descriptor of a service, when the gateway has one: calls then use its protobuf codecs and paths. */
  descriptorFor(service: string): ServiceDescriptor | undefined;
  /** Provider problems discovery survives (unreachable etcd, bad DNS answer…). Default: `process.emitWarning`. */
  onProblem?(service: string, error: Error): void;
  /** Every decision taken on the gateway's behalf (retries, circuit changes, backend lost…): for metrics. */
  onEvent?(event: DiscoveryEvent): void;
  /** Log lines for the notable ones (circuit changes, unresponsive instances, backend lost/restored). Default: `process.emitWarning`. */
  log?(message: string): void;
}

/** What `status()` (and the gateway's `GET /ready`) says about one service. */
export interface DiscoveredServiceStatus {
  /** `up`: the provider answers; `down`: unreachable, serving on the last-known instances; `static`: a fixed list. */
  backend: 'up' | 'down' | 'static';
  /** Since when the backend is in that state (ISO time). */
  since: string;
  /** The provider's last error while `down`. */
  lastError: string | undefined;
  instances: number;
  /** Healthy and not cut off by an open circuit. */
  available: number;
  openCircuits: number;
}

export interface DiscoveryStatus {
  /** Every provider has given its first list (or its start timeout passed). */
  ready: boolean;
  services: Record<string, DiscoveredServiceStatus>;
}

/** A service served only by discovered instances, registered with the gateway by its descriptor. */
export interface RemoteDescriptorService {
  descriptor: ServiceDescriptor;
  /** Forwarding handlers by camelCase method name, as `addService(descriptor, handlers)` takes them. */
  handlers: Record<string, (request: unknown, context: RequestContext) => unknown>;
}

export interface ServiceDiscovery extends RemoteServiceResolver {
  /** Resolves when every provider has reported once (or its start timeout passed) and the first health round is done. */
  ready(): Promise<void>;
  /** The current instances of `service` with their health and load. */
  instances(service: string): InstanceInfo[];
  /** Runs a health-check round now. */
  checkHealth(): Promise<void>;
  /** Backend and instance state of every service. */
  status(): DiscoveryStatus;
  /** The services configured with a `descriptor`, with their forwarding handlers. */
  remoteServices(): RemoteDescriptorService[];
}

const JSON_CODEC: WireCodec = {
  serialize: (value) => Buffer.from(JSON.stringify(value ?? {}), 'utf8'),
  deserialize: (bytes) => JSON.parse(bytes.toString('utf8')) as unknown,
};

/**
 * Protobuf binary on the wire. The gateway hands remote handlers JSON-shaped
 * requests (its transports decode JSON; no local codec ran), so requests are
 * read as proto3 JSON before `encode` and responses written as canonical
 * proto3 JSON after `decode` (through the message gates when the descriptor
 * embeds its files): remote methods are JSON in, JSON out, like inline handlers.
 */
function binaryCodecs(descriptor: ServiceDescriptor, md: MethodDescriptor): { requestCodec: WireCodec; responseCodec: WireCodec } {
  const gates = gatesOf(descriptor, md);
  const readRequest = gates === undefined ? (json: unknown) => md.requestCodec.fromJSON(json) : (json: unknown) => gates.request.fromJson(json);
  const writeResponse = gates === undefined ? (value: unknown) => md.responseCodec.toJSON(value) : (value: unknown) => gates.response.toJson(value);
  const readResponse = gates === undefined ? (json: unknown) => md.responseCodec.fromJSON(json) : (json: unknown) => gates.response.fromJson(json);
  const writeRequest = gates === undefined ? (value: unknown) => md.requestCodec.toJSON(value) : (value: unknown) => gates.request.toJson(value);
  return {
    requestCodec: {
      serialize: (value) => asBuffer(md.requestCodec.encode(readRequest(value))),
      deserialize: (bytes) => writeRequest(md.requestCodec.decode(bytes)),
    },
    responseCodec: {
      serialize: (value) => asBuffer(md.responseCodec.encode(readResponse(value))),
      deserialize: (bytes) => writeResponse(md.responseCodec.decode(bytes)),
    },
  };
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Protobuf binary of the handler-native messages a hosted generated service passes (the gateway decoded JSON at the edge). */
function nativeCodec(codec: MethodDescriptor['requestCodec']): WireCodec {
  return {
    serialize: (value) => {
      const bytes = codec.encode(value);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    deserialize: (bytes) => codec.decode(bytes),
  };
}

function findMethod(descriptor: ServiceDescriptor, method: string): MethodDescriptor | undefined {
  const direct = descriptor.methods[method];
  if (direct !== undefined) return direct;
  return Object.values(descriptor.methods).find((m) => m.localName === method || m.name === method);
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * Builds service discovery for a gateway.
 *
 * @example
 * const discovery = createServiceDiscovery(
 *   {
 *     provider: 'etcd',
 *     etcd: { hosts: 'http://127.0.0.1:2379' },
 *     services: { UserService: { strategy: 'least_connections', healthCheck: '/health', instances: 'auto-discover' } },
 *     routing: { http: { sticky_sessions: true, session_header: 'X-Session-ID' } },
 *   },
 *   { descriptorFor: (name) => (name === 'UserService' ? UserServiceDescriptor : undefined) },
 * );
 * await discovery.ready();
 * const remote = discovery.resolve('UserService', 'getUser'); // → forwards to an instance
 */
export function createServiceDiscovery(config: ServiceDiscoveryConfig, options: ServiceDiscoveryOptions): ServiceDiscovery {
  validateDiscoveryConfig(config);
  const createdAt = Date.now();
  const report = options.onProblem ?? ((service: string, error: Error) => process.emitWarning(`service discovery (${service}): ${error.message}`));
  const onProblem = (service: string, error: Error): void => {
    try {
      report(service, error);
    } catch {
      // A throwing problem listener must not stop discovery (or crash the process from a watcher callback).
    }
  };
  const forwarding = config.forwarding ?? {};
  const policy = forwardingPolicy(forwarding);
  const log = options.log ?? ((message: string) => process.emitWarning(message, 'FwDiscoveryWarning'));
  const observe = (service: string, decision: DiscoveryDecision, instance: ServiceInstance | undefined, reason: string): void => {
    const event: DiscoveryEvent = { service, decision, instance: instance?.key, reason };
    try {
      options.onEvent?.(event);
      if (LOGGED_DECISIONS.has(decision)) log(`service discovery (${service}): ${decision.replace(/_/g, ' ')}${instance === undefined ? '' : ` ${instance.key}`}: ${reason}`);
    } catch {
      // A throwing listener must not break forwarding.
    }
  };
  const backends = new Map<string, { up: boolean; since: number; lastError: string | undefined }>();
  const health = new HealthChecker(config.healthCheck, (instance) => channelOf(instance, forwarding));
  const pools = new Map<string, InstancePool>();
  /** service → method → its forwarder (null: the service's descriptor has no such method). Nested: no key string per call. */
  const remoteMethods = new Map<string, Map<string, RemoteMethod | null>>();
  const routers = new Map<string, CallRouter>();

  const sessionHeader = (config.routing?.http?.session_header ?? 'X-Session-ID').toLowerCase();
  const sticky = config.routing?.http?.sticky_sessions === true;
  const wsAffinity = config.routing?.websocket?.connection_affinity === true;
  const grpcPolicy = config.routing?.grpc?.load_balancing;

  for (const [name, svc] of Object.entries(config.services)) {
    const pool = new InstancePool(name, {
      onAdded: (instance) => {
        instance.breaker = policy.breaker.create((_from, to, reason) => {
          observe(name, to === 'open' ? 'circuit_open' : to === 'closed' ? 'circuit_closed' : 'circuit_half_open', instance, reason);
        });
      },
      onRemoved: closeChannels,
    });
    pools.set(name, pool);
    const strategy: BalancingStrategy = svc.strategy ?? 'round_robin';
    const grpcStrategy: BalancingStrategy = grpcPolicy === undefined || grpcPolicy === 'pick_first' ? strategy : grpcPolicy;
    routers.set(name, {
      strategy: (context: RequestContext) => (context.protocol === 'grpc' ? grpcStrategy : strategy),
      affinityKey: (context: RequestContext) => {
        switch (context.protocol) {
          case 'http': return sticky ? context.headers[sessionHeader] : undefined;
          case 'websocket': return wsAffinity ? context.client.id : undefined;
          case 'grpc': return grpcPolicy === 'pick_first' ? context.client.id : undefined;
          default: return undefined;
        }
      },
    });
    if (Array.isArray(svc.instances)) pool.update(svc.instances as readonly InstanceAddress[]);
  }

  const discovered = Object.entries(config.services)
    .filter(([, svc]) => (svc.instances ?? 'auto-discover') === 'auto-discover')
    .map(([name]) => name);
  let source: InstanceSource | undefined;
  if (discovered.length > 0) {
    // Providers load on demand: a gateway using static lists never loads the etcd3 client.
    /* eslint-disable @typescript-eslint/no-require-imports */
    switch (config.provider) {
      case 'dns': source = new (require('./providers/dns-source') as typeof import('./providers/dns-source')).DnsSource(config.dns); break;
      case 'etcd': source = new (require('./providers/etcd-source') as typeof import('./providers/etcd-source')).EtcdSource(config.etcd ?? { hosts: [] }); break;
      case 'consul': source = new (require('./providers/consul-source') as typeof import('./providers/consul-source')).ConsulSource(config.consul); break;
      case 'static': break;
    }
    /* eslint-enable @typescript-eslint/no-require-imports */
  }

  for (const name of discovered) backends.set(name, { up: true, since: Date.now(), lastError: undefined });
  /** Provider errors other than a malformed entry mean the backend is unreachable: reported once per outage. */
  const sourceProblem = (service: string, error: Error): void => {
    onProblem(service, error);
    const backend = backends.get(service);
    if (backend === undefined || error instanceof DiscoveryConfigError) return;
    backend.lastError = error.message;
    if (!backend.up) return;
    backend.up = false;
    backend.since = Date.now();
    observe(service, 'backend_lost', undefined, `${error.message}; serving on the ${pools.get(service)?.instances.length ?? 0} last-known instance(s)`);
  };
  const sourceInstances = (service: string, list: readonly InstanceAddress[]): void => {
    pools.get(service)?.update(list);
    const backend = backends.get(service);
    if (backend === undefined || backend.up) return;
    backend.up = true;
    backend.since = Date.now();
    backend.lastError = undefined;
    observe(service, 'backend_restored', undefined, `${list.length} instance(s) listed`);
  };
  let isReady = false;
  const started = (source?.start(discovered, sourceInstances, sourceProblem) ?? Promise.resolve()).then(() => {
    isReady = true;
    for (const [name, svc] of Object.entries(config.services)) {
      const pool = pools.get(name);
      if (svc.healthCheck !== undefined && pool !== undefined) health.watch(pool, svc.healthCheck);
    }
    return health.checkNow();
  });
  // ready() reports failures; an unobserved start must not crash the process.
  started.catch(() => undefined);

  const ping = usesLeanUnary(forwarding)
    ? (instance: ServiceInstance, timeoutMs: number, done: (alive: boolean) => void) => h2ChannelOf(instance).ping(timeoutMs, done)
    : undefined;
  const watchdog = new LivenessWatchdog({ [Symbol.iterator]: () => pools.values() }, policy, ping, (pool, instance, reason) => {
    observe(pool.service, 'instance_unresponsive', instance, reason);
    instance.breaker.trip(reason);
    // Idempotent calls waiting on it go elsewhere now; the others wait for an answer or their deadline.
    const waiting = [...instance.stallWaiters];
    instance.stallWaiters.clear();
    for (const wake of waiting) wake();
  });

  function remoteMethod(service: string, method: string): RemoteMethod | undefined {
    const pool = pools.get(service);
    const router = routers.get(service);
    if (pool === undefined || router === undefined) return undefined;
    const svc = config.services[service];
    const common = { service, pool, router, forwarding, policy, observe: (d: DiscoveryDecision, i: ServiceInstance | undefined, r: string) => observe(service, d, i, r) };
    const own = svc?.descriptor;
    const descriptor = own ?? options.descriptorFor(service);
    if (descriptor !== undefined) {
      const md = findMethod(descriptor, method);
      if (md === undefined) return undefined;
      const codecs = own !== undefined ? { requestCodec: nativeCodec(md.requestCodec), responseCodec: nativeCodec(md.responseCodec) } : binaryCodecs(descriptor, md);
      const idempotent = md.idempotency === 'idempotent' || md.idempotency === 'no_side_effects' || (svc?.idempotentMethods?.includes(md.localName) ?? false);
      return createRemoteMethod({ ...common, paths: [md.path], streaming: md.streaming, ...codecs, protobuf: true, idempotent });
    }
    const conventional = `/${service}/${pascal(method)}`;
    const asNamed = `/${service}/${method}`;
    return createRemoteMethod({
      ...common, paths: conventional === asNamed ? [conventional] : [conventional, asNamed], streaming: svc?.methods?.[method] ?? 'none',
      requestCodec: JSON_CODEC, responseCodec: JSON_CODEC, protobuf: false, idempotent: svc?.idempotentMethods?.includes(method) ?? false,
    });
  }

  return {
    resolve(service: string, method: string): RemoteMethod | undefined {
      const methods = remoteMethods.get(service);
      const cached = methods?.get(method);
      if (cached !== undefined) return cached ?? undefined;
      if (!pools.has(service)) return undefined;
      const remote = remoteMethod(service, method) ?? null;
      if (methods === undefined) remoteMethods.set(service, new Map([[method, remote]]));
      else methods.set(method, remote);
      return remote ?? undefined;
    },

    remoteServices(): RemoteDescriptorService[] {
      const out: RemoteDescriptorService[] = [];
      for (const [service, svc] of Object.entries(config.services)) {
        const descriptor = svc.descriptor;
        if (descriptor === undefined) continue;
        const handlers: RemoteDescriptorService['handlers'] = {};
        const passThrough: PassThroughSpec = { handlers: {}, instanceValidates: svc.validation === 'instance' };
        for (const md of Object.values(descriptor.methods)) {
          const remote = this.resolve(service, md.localName);
          if (remote === undefined) continue;
          handlers[md.localName] = remote.handler;
          if (remote.passThrough !== undefined) passThrough.handlers[md.localName] = remote.passThrough;
        }
        // The gateway's gRPC transport may hand these the caller's bytes (../pass-through.ts says when).
        Object.defineProperty(handlers, PASS_THROUGH, { value: passThrough, enumerable: false });
        out.push({ descriptor, handlers });
      }
      return out;
    },

    status(): DiscoveryStatus {
      const services: Record<string, DiscoveredServiceStatus> = {};
      for (const [name, pool] of pools) {
        const backend = backends.get(name);
        const all = pool.instances;
        services[name] = {
          backend: backend === undefined ? 'static' : backend.up ? 'up' : 'down',
          since: new Date(backend?.since ?? createdAt).toISOString(),
          lastError: backend?.up === false ? backend.lastError : undefined,
          instances: all.length,
          available: all.filter((i) => i.healthy && i.breaker.state !== 'open').length,
          openCircuits: all.filter((i) => i.breaker.state === 'open').length,
        };
      }
      return { ready: isReady, services };
    },

    ready: () => started,

    instances(service: string): InstanceInfo[] {
      return (pools.get(service)?.instances ?? []).map((i) => ({
        host: i.host, port: i.port, weight: i.weight, healthy: i.healthy, inFlight: i.inFlight, picked: i.picked, circuit: i.breaker.state,
      }));
    },

    checkHealth: () => health.checkNow(),

    async close(): Promise<void> {
      health.close();
      watchdog.close();
      await source?.close();
      for (const pool of pools.values()) pool.clear();
    },
  };
}
