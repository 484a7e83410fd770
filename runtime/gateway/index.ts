/**
 * The protocol gateway (spec 4.10): one set of services over HTTP,
 * WebSocket, gRPC, UDP and TCP on one port, with auth, validation, rate
 * limits and one error model. See docs/gateway.md and docs/protocols.md.
 */
export { ProtocolGateway, createProtocolGateway } from './protocol-gateway';
export type { GatewayOptions, CreateGatewayOptions, ErrorHandlingConfig, GatewayAddress } from './options';
export { ServiceError, transformError, toServiceError, ServiceErrors, ERROR_CATALOGUE, type CatalogueCode } from './errors';
export type { CatalogueEntry } from '../rpc/error-catalogue';
export type { HttpErrorOutput, GrpcErrorOutput, WebSocketErrorOutput, GenericErrorOutput, TransformedError } from './errors';
export type {
  ServiceDefinition,
  ServiceMethod,
  ServiceInput,
  ValidationSchema,
  RateLimitConfig,
  ServiceAuthenticationConfig,
  DescriptorServiceOptions,
  GatewayHandler,
} from './types';
export type { AuthenticationConfig, AuthProvidersConfig, JwtProviderConfig, ApiKeyProviderConfig, OAuthProviderConfig, TokenExtractors } from './auth/types';
export type { HttpGatewayConfig, HttpGatewayHandler } from './http/transport';
export type { WebSocketGatewayConfig } from './websocket/transport';
export type { WebSocketStreamingHooks } from './websocket/streaming-hooks';
export type { WebSocketMessageFormat } from './websocket/codec';
export type { GrpcGatewayConfig } from './grpc/method-table';
export type { GrpcGatewayOptions } from './grpc/transport';
export type { UdpGatewayConfig } from './udp/transport';
export type { TcpGatewayConfig } from './tcp/transport';
export type { DispatchCall, DispatchInterceptor, GatewayEvent, GatewayEventSink, RemoteMethod, RemoteServiceResolver } from './extension-points';
export { FrameType, encodeFrame, decodeFrame } from './wire/frame-codec';
// Monitoring and discovery configuration types; their implementations load only when configured.
export type {
  MonitoringConfig,
  MetricsConfig,
  MetricsCollector,
  ProtocolMetricsConfig,
  TracingConfig,
  TracingProvider,
  LoggingConfig,
  LogField,
  SpanAttributeContext,
  GatewayMetrics,
} from './monitoring';
export type {
  ServiceDiscoveryConfig,
  DiscoveredServiceConfig,
  DiscoveryProvider,
  BalancingStrategy,
  RoutingConfig,
  InstanceAddress,
  HealthCheckOptions,
  ForwardingOptions,
  EtcdOptions,
  DnsOptions,
  ConsulOptions,
  CircuitBreaker,
  CircuitBreakerKind,
  CircuitBreakerSetting,
  CircuitListener,
  CircuitState,
  ConsecutiveFailuresOptions,
  DiscoveryDecision,
  DiscoveryEvent,
  DiscoveryStatus,
  DiscoveredServiceStatus,
} from './discovery';
export { registerEtcdInstance, DEFAULT_ETCD_PREFIX, type EtcdRegistration } from './discovery/etcd-registration';
