/**
 * How a gRPC call is read off the engine's call port
 * (grpc/grpc-call-port.ts) and handed to the call core: the method to run
 * (its byte-forwarding twin when binary requests may pass through,
 * raw-requests.ts), the request or request stream mapped through
 * configureGRPC's `transformRequest`, the caller's deadline (`grpc-timeout`,
 * read by the engine), the trace context (the configured correlation header
 * and `traceparent`), and the RequestContext (context.ts). A message that
 * cannot be decoded is refused through the core, so it is counted and
 * logged with its real status.
 */
import type { RequestContext } from '../../core/request-context';
import type { CallSource } from '../../grpc/call';
import { requestWasCompressed } from '../../grpc/compression';
import { MetadataMap, type ReadableMetadata } from '../../grpc/metadata-map';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import { decodeFailure } from '../errors';
import type { GatewayCore } from '../gateway-core';
import { tracingFrom } from '../../rpc/tracing';
import type { CancelWatch } from './cancel-watch';
import { grpcContext } from './context';
import { cameAsJson, GRPC_JSON_CONTENT_TYPE, JsonReply, Undecodable } from './message-format';
import type { GrpcGatewayConfig, GrpcRoute } from './method-table';
import { requestFor } from './raw-requests';
import { wireReply } from './reply-sink';

/** One call handed to the core: its result, the gateway's response headers, and its context. */
export interface StartedCall {
  readonly promise: Promise<unknown>;
  readonly headers: MetadataMap;
  readonly context: RequestContext;
}

/** The method to run and its byte-forwarding twin, when the method has one. */
export interface RouteMethod {
  readonly resolved: ResolvedMethod | undefined;
  readonly passing: ResolvedMethod | undefined;
}

function firstString(md: ReadableMetadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/** The caller's deadline in epoch ms, if it set one (the engines give Infinity otherwise). */
function deadlineOf(call: CallSource): number | undefined {
  const d = call.getDeadline();
  const ms = d instanceof Date ? d.getTime() : d;
  return Number.isFinite(ms) ? ms : undefined;
}

/** Reads the calls of one route. */
export class GrpcCallReader {
  readonly #core: GatewayCore;
  readonly #route: GrpcRoute;
  readonly #config: () => GrpcGatewayConfig;

  constructor(core: GatewayCore, route: GrpcRoute, config: () => GrpcGatewayConfig) {
    this.#core = core;
    this.#route = route;
    this.#config = config;
  }

  /** The method to run: its byte-forwarding twin when binary requests may pass through (raw-requests.ts), else itself. */
  method(): RouteMethod {
    const dispatcher = this.#core.dispatcher;
    const resolved = dispatcher.resolve(this.#route.service, this.#route.method);
    return { resolved, passing: dispatcher.passThrough(resolved) };
  }

  /** A request as the handler takes it (configureGRPC's transformRequest on proto-file routes); an Undecodable stays one. */
  request(value: unknown): unknown {
    if (value instanceof Undecodable) return value;
    const transform = this.#route.mapped ? this.#config().transformRequest : undefined;
    return transform === undefined ? value : transform(value, this.#route.method);
  }

  /** The reply value after configureGRPC's transformResponse (proto-file routes). */
  response(value: unknown): unknown {
    const transform = this.#route.mapped ? this.#config().transformResponse : undefined;
    return transform === undefined ? value : transform(value, this.#route.method);
  }

  /**
   * A result as the wire takes it, after transformResponse: JSON for a
   * gRPC+JSON request, written from the proto file's descriptors on
   * proto-file routes and by the method's own writer on the others.
   */
  reply(result: unknown, json: boolean, resolved: ResolvedMethod | undefined): unknown {
    const value = this.response(result);
    const toJSON = this.#route.toJSON;
    if (json && toJSON !== undefined) return new JsonReply(Buffer.from(JSON.stringify(toJSON(value) ?? {})));
    return wireReply(value, json, resolved);
  }

  /**
   * The request stream for the handler: an undecodable message ends it with
   * INVALID_ARGUMENT; `state.json` follows the messages' format (and a JSON
   * one makes the reply JSON, `headers` naming its content type).
   */
  async *requests(source: AsyncIterable<unknown>, method: RouteMethod, state: { json: boolean }, headers: () => MetadataMap): AsyncIterable<unknown> {
    for await (const raw of source) {
      const item = requestFor(method.resolved, method.passing !== undefined, raw);
      if (item instanceof Undecodable) throw decodeFailure(item.error, 'Stream message');
      state.json = cameAsJson(item);
      if (state.json) headers().set('content-type', GRPC_JSON_CONTENT_TYPE);
      yield this.request(item);
    }
  }

  /**
   * Hands one call to the core. Response headers (the trace id, and the
   * gRPC+JSON content type when `json`) are collected, not sent: they go out
   * with the first message or the status.
   */
  start(call: CallSource, resolved: ResolvedMethod | undefined, request: unknown, signal: AbortSignal | (() => AbortSignal), json: boolean, cancellation?: CancelWatch): StartedCall {
    const core = this.#core;
    const md = call.metadata;
    // The configured correlation header (monitoring's correlationHeader, default x-trace-id), as on every transport.
    const traceHeader = core.traceHeader;
    const tracing = tracingFrom(firstString(md, traceHeader), firstString(md, 'traceparent'));
    const headers = new MetadataMap();
    headers.set(traceHeader, tracing.traceId);
    // Replies to gRPC+JSON requests are JSON (message-format.ts).
    if (json) headers.set('content-type', GRPC_JSON_CONTENT_TYPE);
    const deadline = deadlineOf(call);
    const route = this.#route;
    const context = grpcContext(call.getPeer(), md, route.definition.path, tracing, signal, () => requestWasCompressed(call), deadline, cancellation);
    if (request instanceof Undecodable) return { promise: core.dispatcher.refuse(resolved, route.service, route.method, decodeFailure(request.error), context, md), headers, context };
    if (core.observed) core.emit({ type: 'message', protocol: 'grpc', direction: 'in', bytes: 0 });
    const callDeadline = deadline === undefined ? undefined : { at: deadline, ms: Math.max(1, deadline - Date.now()) };
    return { promise: core.dispatcher.call(resolved, route.service, route.method, request, context, md, callDeadline), headers, context };
  }
}
