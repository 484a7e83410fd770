/**
 * `fw/testing`: in-process clients for tests.
 */
export { createGrpcTestClient, type GrpcTestCallOptions, type GrpcTestClient, type GrpcTestClientOptions, type UntypedGrpcTestClient } from './grpc-test-client';
