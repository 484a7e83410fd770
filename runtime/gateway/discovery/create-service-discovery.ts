/**
 * `createServiceDiscovery(config, options)`: the RemoteServiceResolver behind
 * `gateway.configureServiceDiscovery`. It keeps one instance pool per
 * configured service, fed by the provider (static lists, DNS SRV, etcd,
 * Consul) and pruned by health checks, and resolves `service.method` to a
 * handler that forwards the call to a chosen instance over gRPC.
 */
import type { RequestContext } from '../../core/request-context';
import type { MethodDescriptor, ServiceDescriptor } from '../../grpc/descriptor';
import type { RemoteMethod, RemoteServiceResolver } from '../extension-points';
import { validateDiscoveryConfig, type BalancingStrategy, type InstanceAddress, type ServiceDiscoveryConfig } from './discovery-config';
import { channelOf, closeChannels, createRemoteMethod, type CallRouter, type WireCodec } from './grpc-forwarder';
import { HealthChecker } from './health-checker';
import { InstancePool } from './instance-pool';
import type { InstanceSource } from './providers/instance-source';
import type { InstanceInfo } from './service-instance';

export interface ServiceDiscoveryOptions {
  /** The generated descriptor of a service, when the gateway has one: calls then use its protobuf codecs and paths. */
  descriptorFor(service: string): ServiceDescriptor | undefined;
  /** Provider problems discovery survives (unreachable etcd, bad DNS answer…). Default: `process.emitWarning`. */
  onProblem?(service: string, error: Error): void;
}

export interface ServiceDiscovery extends RemoteServiceResolver {
  /** Resolves when every provider has reported once and the first health round is done. */
  ready(): Promise<void>;
  /** The current instances of `service` with their health and load. */
  instances(service: string): InstanceInfo[];
  /** Runs a health-check round now. */
  checkHealth(): Promise<void>;
}

const JSON_CODEC: WireCodec = {
  serialize: (value) => Buffer.from(JSON.stringify(value ?? {}), 'utf8'),
  deserialize: (bytes) => JSON.parse(bytes.toString('utf8')) as unknown,
};

/**
 * Protobuf binary on the wire. The gateway hands remote handlers JSON-shaped
 * requests (its transports decode JSON; no local codec ran), so requests go
 * through `fromJSON` before `encode` and responses through `toJSON` after
 * `decode`: remote methods are JSON in, JSON out, like inline handlers.
 */
function binaryCodec(codec: MethodDescriptor['requestCodec'], read: (json: unknown) => unknown = (json) => codec.fromJSON(json)): WireCodec {
  return {
    serialize: (value) => {
      const bytes = codec.encode(read(value));
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    deserialize: (bytes) => codec.toJSON(codec.decode(bytes)),
  };
}

/** Strict proto3 JSON for forwarded requests too (the instance then checks the rules); the codec's reader for hand-made descriptors. */
function strictReader(descriptor: ServiceDescriptor, md: MethodDescriptor): ((json: unknown) => unknown) | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { methodGates } = require('../../validation/message-gate') as typeof import('../../validation/message-gate');
  const gate = methodGates(descriptor, md)?.request;
  return gate === undefined ? undefined : (json) => gate.fromJson(json);
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
  const report = options.onProblem ?? ((service: string, error: Error) => process.emitWarning(`service discovery (${service}): ${error.message}`));
  const onProblem = (service: string, error: Error): void => {
    try {
      report(service, error);
    } catch {
      // A throwing problem listener must not stop discovery (or crash the process from a watcher callback).
    }
  };
  const forwarding = config.forwarding ?? {};
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
      onAdded: () => undefined,
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

  const started = (source?.start(discovered, (service, list) => pools.get(service)?.update(list), onProblem) ?? Promise.resolve()).then(() => {
    for (const [name, svc] of Object.entries(config.services)) {
      const pool = pools.get(name);
      if (svc.healthCheck !== undefined && pool !== undefined) health.watch(pool, svc.healthCheck);
    }
    return health.checkNow();
  });
  // ready() reports failures; an unobserved start must not crash the process.
  started.catch(() => undefined);

  return {
    resolve(service: string, method: string): RemoteMethod | undefined {
      const methods = remoteMethods.get(service);
      const cached = methods?.get(method);
      if (cached !== undefined) return cached ?? undefined;
      const pool = pools.get(service);
      const router = routers.get(service);
      if (pool === undefined || router === undefined) return undefined;
      const descriptor = options.descriptorFor(service);
      let remote: RemoteMethod | null;
      if (descriptor !== undefined) {
        const md = findMethod(descriptor, method);
        remote =
          md === undefined
            ? null
            : createRemoteMethod({
                service, paths: [md.path], streaming: md.streaming, requestCodec: binaryCodec(md.requestCodec, strictReader(descriptor, md)),
                responseCodec: binaryCodec(md.responseCodec), pool, router, forwarding,
              });
      } else {
        const conventional = `/${service}/${pascal(method)}`;
        const asNamed = `/${service}/${method}`;
        remote = createRemoteMethod({
          service, paths: conventional === asNamed ? [conventional] : [conventional, asNamed], streaming: config.services[service]?.methods?.[method] ?? 'none',
          requestCodec: JSON_CODEC, responseCodec: JSON_CODEC, pool, router, forwarding,
        });
      }
      if (methods === undefined) remoteMethods.set(service, new Map([[method, remote]]));
      else methods.set(method, remote);
      return remote ?? undefined;
    },

    ready: () => started,

    instances(service: string): InstanceInfo[] {
      return (pools.get(service)?.instances ?? []).map((i) => ({
        host: i.host, port: i.port, weight: i.weight, healthy: i.healthy, inFlight: i.inFlight, picked: i.picked,
      }));
    },

    checkHealth: () => health.checkNow(),

    async close(): Promise<void> {
      health.close();
      await source?.close();
      for (const pool of pools.values()) pool.clear();
    },
  };
}
