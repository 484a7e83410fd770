/**
 * `fw/grpc-client`: the typed gRPC client (spec 4.9).
 */
export {
  createGrpcClient,
  type GrpcCallOptions,
  type GrpcClientOptions,
  type GrpcClientControls,
  type InlineClientService,
  type UntypedGrpcClient,
} from './create-grpc-client';
export { GrpcError } from '../errors';
export type { MetadataRecord, MetadataValue } from '../../core/call-metadata';
export { GrpcStatus } from '../../core/status';
