/**
 * Gateway service discovery and load balancing: find instances of remote
 * services (static, DNS SRV, etcd, Consul), spread calls over them and
 * forward over gRPC. See docs/discovery.md.
 */
export {
  createServiceDiscovery,
  type DiscoveredServiceStatus,
  type DiscoveryStatus,
  type RemoteDescriptorService,
  type ServiceDiscovery,
  type ServiceDiscoveryOptions,
} from './create-service-discovery';
export type { CircuitBreaker, CircuitBreakerKind, CircuitBreakerSetting, CircuitListener, CircuitState, ConsecutiveFailuresOptions } from './circuit-breakers';
export type { DiscoveryDecision, DiscoveryEvent } from './forwarding-events';
export {
  DiscoveryConfigError,
  type BalancingStrategy,
  type ConsulOptions,
  type DiscoveredServiceConfig,
  type DiscoveryProvider,
  type DnsOptions,
  type EtcdOptions,
  type ForwardingOptions,
  type HealthCheckOptions,
  type InstanceAddress,
  type RoutingConfig,
  type ServiceDiscoveryConfig,
} from './discovery-config';
export { ForwardingError } from './grpc-forwarder';
export { registerEtcdInstance, DEFAULT_ETCD_PREFIX, type EtcdRegistration } from './etcd-registration';
export type { InstanceInfo } from './service-instance';
