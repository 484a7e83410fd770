/**
 * @grpc/grpc-js and @grpc/proto-loader are optional peers of fw: a service
 * on fw's own HTTP/2 engine needs neither (about thirty packages, protobufjs
 * and yargs among them). What uses them — the typed gRPC client, proto files
 * loaded at run time, the `engine: 'grpc-js'` fallback, forwarding over TLS,
 * the discovery health probe, the test client — loads them here on first
 * use, and a missing one fails there with its install command.
 */
import { loadOptionalPeer } from '../core/optional-peer';

/** The @grpc/grpc-js module. */
export type GrpcJsModule = typeof import('@grpc/grpc-js');
/** The @grpc/proto-loader module. */
export type ProtoLoaderModule = typeof import('@grpc/proto-loader');

/** @grpc/grpc-js, for `feature` (named in the error when it is missing). */
export function grpcJs(feature: string): GrpcJsModule {
  return loadOptionalPeer<GrpcJsModule>('@grpc/grpc-js', feature);
}

/** @grpc/proto-loader, for `feature`. */
export function protoLoader(feature: string): ProtoLoaderModule {
  return loadOptionalPeer<ProtoLoaderModule>('@grpc/proto-loader', feature);
}
