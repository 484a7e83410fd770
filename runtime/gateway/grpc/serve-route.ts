/**
 * The serve functions of one gRPC route, one per call kind, against the
 * engine's call ports (grpc/grpc-call-port.ts): each reads the call
 * (call-reader.ts), hands it to the call core, and answers through a
 * GrpcReplySink (reply-sink.ts). On fw's node:http2 engine the port is the
 * engine's call object itself; on grpc-js, one adapter over its calls.
 */
import { RejectedPayload } from '../../core/json-depth';
import type { GrpcBidiStreamPort, GrpcClientStreamPort, GrpcServerStreamPort, ServeStream, ServeUnary } from '../../grpc/grpc-call-port';
import type { MetadataMap } from '../../grpc/metadata-map';
import { catalogueError, ServiceErrors } from '../errors';
import type { GatewayCore } from '../gateway-core';
import { RawMessage } from '../pass-through';
import { CancelWatch } from './cancel-watch';
import type { GrpcCallReader } from './call-reader';
import { cameAsJson } from './message-format';
import { requestFor } from './raw-requests';
import { grpcStatus, GrpcReplySink } from './reply-sink';

/** A request the engine refused (too deep, prototype keys): INVALID_ARGUMENT before anything runs. */
function refused(rejected: RejectedPayload): Error {
  return catalogueError('INVALID_ARGUMENT', rejected.message);
}

/**
 * A unary route: on the default engine the call object is the port itself,
 * so one unary call crosses no grpc-js-shaped adapter.
 */
export function serveUnaryRoute(core: GatewayCore, reader: GrpcCallReader): ServeUnary {
  return (port) => {
    if (port.request instanceof RejectedPayload) {
      port.fail(grpcStatus(core, refused(port.request)));
      return;
    }
    const watch = new CancelWatch(port);
    const method = reader.method();
    const raw = requestFor(method.resolved, method.passing !== undefined, port.request);
    const json = cameAsJson(raw);
    const { promise, headers, context } = reader.start(port, raw instanceof RawMessage ? method.passing : method.resolved, reader.request(raw), () => watch.signal, json, watch);
    const sink = new GrpcReplySink(port, core, headers, context, watch);
    promise.then((result) => sink.message(reader.reply(result, json, method.resolved)), (error: unknown) => sink.failWith(error)).catch((error: unknown) => sink.failWith(error));
  };
}

/** A streaming route's serve function, by its call kind. */
export function serveStreamRoute(core: GatewayCore, reader: GrpcCallReader, kind: ServeStream['kind']): ServeStream {
  switch (kind) {
    case 'client':
      return { kind, serve: (port) => serveClientStream(core, reader, port) };
    case 'server':
      return { kind, serve: (port) => serveReplyStream(core, reader, port, false) };
    default:
      return { kind, serve: (port) => serveReplyStream(core, reader, port, true) };
  }
}

function serveClientStream(core: GatewayCore, reader: GrpcCallReader, port: GrpcClientStreamPort): void {
  const watch = new CancelWatch(port);
  const state = { json: false };
  let headers: MetadataMap | undefined;
  const method = reader.method();
  const requests = reader.requests(port.requests, method, state, () => headers as MetadataMap);
  const started = reader.start(port, method.passing ?? method.resolved, requests, () => watch.signal, false, watch);
  headers = started.headers;
  const sink = new GrpcReplySink(port, core, started.headers, started.context, watch);
  started.promise.then((result) => sink.message(reader.reply(result, state.json, method.resolved)), (error: unknown) => sink.failWith(error)).catch((error: unknown) => sink.failWith(error));
}

/** A server-streaming (`clientStreams` false) or bidi call: items written with back-pressure, ended by the core's drain if it must. */
function serveReplyStream(core: GatewayCore, reader: GrpcCallReader, port: GrpcServerStreamPort | GrpcBidiStreamPort, clientStreams: boolean): void {
  const single = clientStreams ? undefined : (port as GrpcServerStreamPort).request;
  if (single instanceof RejectedPayload) {
    port.fail(grpcStatus(core, refused(single)));
    return;
  }
  // Streaming calls read the signal at once: it is their cleanup signal (a request stream may outlive the response).
  const watch = new CancelWatch(port);
  const method = reader.method();
  const raw = clientStreams ? undefined : requestFor(method.resolved, method.passing !== undefined, single);
  // A bidi reply follows the format of the latest request message (JSON once one came as JSON).
  const state = { json: cameAsJson(raw) };
  let headers: MetadataMap | undefined;
  const request = clientStreams ? reader.requests((port as GrpcBidiStreamPort).requests, method, state, () => headers as MetadataMap) : reader.request(raw);
  const resolved = clientStreams || raw instanceof RawMessage ? (method.passing ?? method.resolved) : method.resolved;
  const started = reader.start(port, resolved, request, watch.signal, state.json);
  headers = started.headers;
  const sink = new GrpcReplySink(port, core, started.headers, started.context);
  const signal = watch.signal;
  // A drain past its timeout ends the stream with UNAVAILABLE before the connection is cut.
  let terminated = false;
  const untrack = core.dispatcher.trackStream((error) => {
    if (signal.aborted) return;
    terminated = true;
    sink.fail(error);
  });
  started.promise
    .then(async (result) => {
      if (result === null || typeof result !== 'object' || !(Symbol.asyncIterator in result)) throw ServiceErrors.notIterable();
      for await (const item of result as AsyncIterable<unknown>) {
        if (signal.aborted || terminated) return;
        const pending = sink.item(reader.reply(item, state.json, method.resolved));
        if (pending !== undefined) await pending;
      }
      if (!terminated) sink.end();
    })
    .catch((error: unknown) => {
      if (!signal.aborted && !terminated) sink.failWith(error);
    })
    .finally(untrack);
}
