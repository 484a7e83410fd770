/**
 * Puts a service binding on a server engine: unary methods through fw's call
 * port, streaming methods through fw's streaming ports. The one way
 * server.grpc() serves its services, also used by the gateway for the health
 * service it shares with server.grpc().
 */
import { compressingSerializer } from './compression';
import type { ServiceBinding } from './method-binding';
import type { CompressionSettings } from './options';
import type { CallPipeline } from './pipeline';
import type { ServerEngine } from './server-engine';
import type { StreamPortMethod, UnaryPortMethod } from './grpc-call-port';
import { serveStream, serveUnary } from './server-handlers';

/** Registers every method of `service` on `server`, run through `pipeline`. */
export function addToServer(server: ServerEngine, service: ServiceBinding, pipeline: CallPipeline, compression: CompressionSettings | undefined): void {
  const streams: StreamPortMethod[] = [];
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
    streams.push({
      path: method.path,
      name: method.method,
      requestSerialize: method.requestSerialize,
      requestDeserialize: method.requestDeserialize,
      responseSerialize,
      responseDeserialize: method.responseDeserialize,
      ...serveStream(method, pipeline),
    });
  }
  if (unary.length > 0) server.addUnary(unary);
  if (streams.length > 0) server.addStreams(streams);
}
