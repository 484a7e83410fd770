/**
 * Puts a service binding on a server engine as grpc-js handler shapes: the
 * one way server.grpc() serves its services, also used by the gateway for the
 * health service it shares with server.grpc().
 */
import type { MethodDefinitionLike } from './h2/server';
import { compressingSerializer } from './compression';
import type { ServiceBinding } from './method-binding';
import type { CompressionSettings } from './options';
import type { CallPipeline } from './pipeline';
import type { ServerEngine } from './server-engine';
import { createHandler } from './server-handlers';

/** Registers every method of `service` on `server`, run through `pipeline`. */
export function addToServer(server: ServerEngine, service: ServiceBinding, pipeline: CallPipeline, compression: CompressionSettings | undefined): void {
  const definition: Record<string, MethodDefinitionLike & { requestSerialize: (value: unknown) => Buffer; responseDeserialize: (bytes: Buffer) => unknown }> = {};
  const implementation: Record<string, unknown> = {};
  for (const method of service.methods) {
    definition[method.method] = {
      path: method.path,
      requestStream: method.streaming === 'client' || method.streaming === 'bidirectional',
      responseStream: method.streaming === 'server' || method.streaming === 'bidirectional',
      requestSerialize: method.requestSerialize,
      requestDeserialize: method.requestDeserialize,
      responseSerialize: compression === undefined ? method.responseSerialize : compressingSerializer(method.responseSerialize, compression),
      responseDeserialize: method.responseDeserialize,
      originalName: method.method,
    };
    implementation[method.method] = createHandler(method, pipeline);
  }
  server.addService(definition, implementation);
}
