/**
 * HTTP/2 streams on the gateway's port that are not gRPC, when the gateway
 * runs on grpc-js (`grpc.engine: 'grpc-js'`; fw's own node:http2 server
 * routes them itself). An h2c connection is handed whole to grpc-js, whose HTTP/2 server answers every stream
 * without an `application/grpc` content-type with a bare 415 and has no
 * public per-stream hook. So the gateway wraps the `emit` of the HTTP/2
 * servers grpc-js creates (its `createHttp2Server`, found on the instance):
 * a `stream` event whose content-type is not gRPC (gRPC-Web included) is
 * offered to the handler first — Connect and gRPC-Web over HTTP/2 — and
 * goes on to grpc-js when the handler declines. gRPC streams pay one
 * header read. Should a grpc-js release drop `createHttp2Server`, nothing is
 * wrapped and those streams get grpc-js's 415 as before (the Connect-ES
 * HTTP/2 tests would say so).
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { ForeignStreamHandler } from './h2/server';
import { isGrpcContentType } from './h2/wire';

/** Makes `server` (a grpc-js Server) offer non-gRPC streams to `handler()` (read per stream; undefined = none). */
export function routeForeignStreams(server: object, handler: () => ForeignStreamHandler | undefined): void {
  const internals = server as { createHttp2Server?: (credentials: unknown) => NodeJS.EventEmitter };
  const create = internals.createHttp2Server;
  if (typeof create !== 'function') return;
  internals.createHttp2Server = (credentials: unknown) => {
    const h2 = create.call(server, credentials);
    const emit = h2.emit;
    h2.emit = function (this: NodeJS.EventEmitter, event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'stream') {
        const headers = args[1] as IncomingHttpHeaders;
        const take = isGrpcContentType(headers['content-type']) ? undefined : handler();
        if (take !== undefined) {
          const stream = args[0] as ServerHttp2Stream;
          try {
            if (take(stream, headers, args[3] as string[])) return true;
          } catch {
            // A handler bug must not escape into the HTTP/2 session (an uncaught throw would end the process).
            stream.destroy();
            return true;
          }
        }
      }
      return emit.call(this, event, ...args);
    } as typeof h2.emit;
    return h2;
  };
}
