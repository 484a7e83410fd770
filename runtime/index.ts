/**
 * `fw`: the HTTP server and router, the protocol gateway, and the types shared
 * by every transport. gRPC lives in `fw/grpc`, its client in `fw/grpc-client`,
 * middleware in `fw/middleware`, in-process clients in `fw/testing`.
 */
export { server, type ServerFactory } from './server';
export * from './core';
export * from './http';
export * from './gateway';
export * from './health';
export * from './rpc';
export type { PartialMessage } from './core/partial-message';
export { fileDescriptorProtos, type FileDescriptorEntry } from './core/file-descriptor-protos';
export * from './validation';
