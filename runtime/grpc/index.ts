/**
 * `fw/grpc`: errors and statuses, proto loading, rate limiting, health and
 * the types of the gRPC application (`server.grpc()` from `fw`).
 */
export { GrpcStatus, grpcStatusName } from '../core/status';
export { GrpcError, GENERIC_INTERNAL_MESSAGE, type UnexpectedErrorListener } from './errors';
export { ServiceError } from '../rpc/service-error';
export { ServiceErrors } from '../rpc/error-catalogue';
export { type ProtoLoadOptions, loadProtoDefinition, type ProtoDefinition, type ProtoServiceSource } from './proto-definition';
export { RateLimiter, type RateLimiterOptions, type RateLimitedCall } from './rate-limiter';
export { HEALTH_SERVICE_NAME, type ServingStatus } from './health';
export { GrpcCall, type CallMetadata } from './call';
export type { GrpcMiddleware } from './pipeline';
export type { GrpcApplication, GrpcListenAddress } from './application';
export { createGrpcApplication } from './application';
export { CHANNEL_OPTION_KEYS, DEFAULT_MAX_MESSAGE_LENGTH, type GrpcServerOptions, type GrpcApplicationOptions, type GrpcTlsOptions, type GrpcServerEngine } from './options';
export type { InlineServiceDefinition, InlineMethod, ProtoServiceRegistration, DescriptorHandlers, Message } from './service-forms';
export { inferStreaming } from '../rpc/streaming-kind';
export type { ServiceDescriptor, MethodDescriptor, MessageCodec, StreamingMode } from '../rpc/descriptor';
export type { DescriptorOptions } from './request-checks';
export {
  InvalidMetadataError,
  type CallMetadataControls,
  type IncomingMetadata,
  type MetadataRecord,
  type MetadataValue,
  type MetadataValueFor,
  type ResponseCompression,
} from '../core/call-metadata';
