/**
 * Puts a service binding on a server engine: unary methods through fw's call
 * port, streaming methods through fw's streaming ports, handed to the engine
 * in grpc-js's handler shape by one adapter (grpc-js-stream-port.ts). The one way
 * server.grpc() serves its services, also used by the gateway for the health
 * service it shares with server.grpc().
 */
import type { MethodDefinitionLike } from './h2/server';
import { compressingSerializer } from './compression';
import type { ServiceBinding } from './method-binding';
import type { CompressionSettings } from './options';
import type { CallPipeline } from './pipeline';
import type { ServerEngine } from './server-engine';
import type { UnaryPortMethod } from './grpc-call-port';
import { grpcJsStreamHandler } from './grpc-js-stream-port';
import { serveStream, serveUnary } from './server-handlers';

/** Registers every method of `service` on `server`, run through `pipeline`. */
export function addToServer(server: ServerEngine, service: ServiceBinding, pipeline: CallPipeline, compression: CompressionSettings | undefined): void {
  const definition: Record<string, MethodDefinitionLike & { requestSerialize: (value: unknown) => Buffer; responseDeserialize: (bytes: Buffer) => unknown }> = {};
  const implementation: Record<string, unknown> = {};
  const unary: UnaryPortMethod[] = [];
  for (const method of service.methods) {
    const responseSerialize = compression === undefined ? method.responseSerialize : compressingSerializer(method.responseSerialize, compression);
    if (method.streaming === 'none') {
      unary.push({
        path: method.path,
        name: method.method,
        requestSerialize: method.requestSerialize,
        requestDeserialize: method.requestDeserialize,
        responseSerialize,
        responseDeserialize: method.responseDeserialize,
        serve: serveUnary(method, pipeline),
      });
      continue;
    }
    definition[method.method] = {
      path: method.path,
      requestStream: method.streaming === 'client' || method.streaming === 'bidirectional',
      responseStream: method.streaming === 'server' || method.streaming === 'bidirectional',
      requestSerialize: method.requestSerialize,
      requestDeserialize: method.requestDeserialize,
      responseSerialize,
      responseDeserialize: method.responseDeserialize,
      originalName: method.method,
    };
    implementation[method.method] = grpcJsStreamHandler(serveStream(method, pipeline));
  }
  if (unary.length > 0) server.addUnary(unary);
  if (service.methods.length > unary.length) server.addService(definition, implementation);
}
