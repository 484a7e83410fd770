/**
 * The gRPC transport: a gRPC server (fw's node:http2 one, or grpc-js's as
 * the fallback; engine.ts) whose services are built from the registry (and
 * configureGRPC proto files), fed connections by the mux so gRPC shares the
 * gateway's one port.
 * Each call becomes one dispatch; errors leave as gRPC statuses with the
 * gateway's string code in the `x-error-code` trailer, the trace id in the
 * trace-id response header (monitoring's `correlationHeader`, default `x-trace-id`).
 */
import type * as grpc from '@grpc/grpc-js';
import type { Duplex } from 'node:stream';
import { ReflectionService, type ReflectionHost } from '../../grpc/reflection-service';
import { RejectedPayload } from '../../core/json-depth';
import { encodeBadRequestStatus, STATUS_DETAILS_KEY } from '../../validation/status-details';
import type { FieldViolation } from '../../validation/violations';
import { catalogueError, decodeFailure, grpcStatusOf, type ServiceError, ServiceErrors, toServiceError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import { nextConnectionId } from '../gateway-core';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import type { ServiceRegistry } from '../../rpc/registry';
import { tracingFrom } from '../tracing';
import { CollectedCallMetadata } from '../../core/call-metadata';
import { chooseCompression, requestWasCompressed } from '../../grpc/compression';
import { valuesToMetadata as toMetadata, type FwStatusObject } from '../../grpc/errors';
import type { GrpcUnaryPort, ServeUnary, UnaryPortMethod } from '../../grpc/grpc-call-port';
import { MetadataMap, type ReadableMetadata } from '../../grpc/metadata-map';
import type { RequestContext } from '../../core/request-context';
import { CancelWatch } from './cancel-watch';
import { grpcContext } from './context';
import { cameAsJson, GRPC_JSON_CONTENT_TYPE, JsonReply, Undecodable } from './message-format';
import type { PackageDefinition } from '@grpc/proto-loader';
import { reflectionEntry } from '../../grpc/reflection-entry';
import type { Http2LimitOptions } from '../../grpc/h2-limits';
import type { GrpcServerEngine } from '../../grpc/options';
import { createServerEngine, type ForeignStreamHandler, type ServerEngine } from '../../grpc/server-engine';
import { bindHealth, HealthState } from '../../grpc/health';
import { CallPipeline } from '../../grpc/pipeline';
import { addToServer } from '../../grpc/serve-binding';
import { RawMessage } from '../pass-through';
import { decodedReply, requestFor } from './raw-requests';
import { protoTables, registryTables, type GrpcGatewayConfig, type GrpcRoute, type GrpcServiceTable } from './method-table';
import type { TransportAdapter } from '../transport-adapter';

/** The constructor's `grpc` options. */
export interface GrpcGatewayOptions extends Http2LimitOptions {
  /** Serve grpc.reflection.v1(alpha) for every service with descriptors: generated ones and configureGRPC proto files. */
  reflection?: boolean;
  /** Largest message in either direction; default 4 MiB. */
  maxMessageSize?: number;
  /** `'node-http2'` (default): fw's gRPC server on Node's HTTP/2; `'grpc-js'`: grpc-js's Server, the fallback (docs/grpc.md "Server engine"). */
  engine?: GrpcServerEngine;
  /** How often a grpc.health.v1 Watch stream repeats the status when nothing changed (ms); default 5000, as on server.grpc(). */
  healthWatchIntervalMs?: number;
}

type AnyCall = GrpcUnaryPort | grpc.ServerReadableStream<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>;

/**
 * `metadata` where grpc-js's call types want their Metadata class: both
 * engines take fw's map (grpc-js's server only clones, sets and reads
 * `toHttp2Headers()` of what it is handed).
 */
function wire(metadata: MetadataMap): grpc.Metadata {
  return metadata as unknown as grpc.Metadata;
}

function firstString(md: ReadableMetadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/** Reads a call's request stream without destroying the call at the end (a duplex must still write). */
async function* mapStream(call: NodeJS.ReadableStream & { iterator(o: { destroyOnReturn: boolean }): AsyncIterable<unknown> }, fn: (v: unknown) => unknown): AsyncIterable<unknown> {
  for await (const item of call.iterator({ destroyOnReturn: false })) {
    if (item instanceof RejectedPayload) throw invalidArgument(item);
    yield fn(item);
  }
}

function invalidArgument(rejected: RejectedPayload): ServiceError {
  return catalogueError('INVALID_ARGUMENT', rejected.message);
}

/** The gRPC transport: a gRPC server fed by the mux, one dispatch per call. */
export class GrpcTransport implements TransportAdapter {
  readonly transport = 'grpc' as const;
  readonly #core: GatewayCore;
  readonly #registry: ServiceRegistry;
  readonly #options: () => GrpcGatewayOptions;
  readonly #config: () => GrpcGatewayConfig;
  #server: ServerEngine | undefined = undefined;
  #registered = new Set<string>();
  #version = -1;
  #configRef: GrpcGatewayConfig | undefined = undefined;
  /** Proto files' package definition (configureGRPC), kept for reflection. */
  #protoPackages: PackageDefinition = {};
  /** The current reflection handlers per reflection method path; swapped when services are added. */
  #reflection: Map<string, grpc.UntypedHandleCall> | undefined = undefined;
  #foreign: ForeignStreamHandler | undefined = undefined;
  /** grpc.health.v1 on the gateway port: every hosted service, NOT_SERVING once a drain begins or while discovery is not ready. */
  readonly #health: HealthState;
  #healthServed = false;

  constructor(core: GatewayCore, registry: ServiceRegistry, options: () => GrpcGatewayOptions, config: () => GrpcGatewayConfig) {
    this.#core = core;
    this.#registry = registry;
    this.#options = options;
    this.#config = config;
    this.#health = new HealthState(() => !core.stopping && core.dispatcher.resolver?.status?.()?.ready !== false);
  }

  /** The gRPC server (created on first use, with the engine the options choose). */
  get server(): ServerEngine {
    if (this.#server === undefined) this.#server = createServerEngine(this.#options(), () => this.#foreign);
    return this.#server;
  }

  /** Non-gRPC HTTP/2 streams (Connect, gRPC-Web) go to `handler` before the gRPC server would refuse them. */
  handleForeignStreams(handler: ForeignStreamHandler | undefined): void {
    this.#foreign = handler;
  }

  /** Registers services added since the last sync (grpc-js accepts services on a running server). */
  sync(): void {
    const config = this.#config();
    if (this.#version === this.#registry.version && this.#configRef === config) return;
    const server = this.server;
    const fromProto = this.#configRef !== config ? protoTables(config) : { tables: [], packageDefinition: undefined };
    const tables: GrpcServiceTable[] = [...registryTables(this.#registry), ...fromProto.tables];
    for (const table of tables) {
      const fresh = [...table.routes.values()].filter((r) => !this.#registered.has(r.definition.path));
      if (fresh.length === 0) continue;
      const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
      const impl: grpc.UntypedServiceImplementation = {};
      const unary: UnaryPortMethod[] = [];
      for (const route of fresh) {
        const key = route.definition.path;
        this.#registered.add(key);
        const d = route.definition;
        if (route.streaming === 'none') {
          unary.push({ path: key, name: key, requestSerialize: d.requestSerialize, requestDeserialize: d.requestDeserialize, responseSerialize: d.responseSerialize, responseDeserialize: d.responseDeserialize, serve: this.#serveFor(route) });
          continue;
        }
        definition[key] = d;
        impl[key] = this.#handlerFor(route) as grpc.UntypedHandleCall;
      }
      if (unary.length > 0) server.addUnary(unary);
      if (unary.length < fresh.length) server.addService(definition as grpc.ServiceDefinition, impl);
    }
    for (const service of this.#registry.services()) {
      this.#health.set(service.name, 'SERVING');
      if (service.descriptor !== undefined) this.#health.set(service.descriptor.typeName, 'SERVING');
    }
    if (!this.#healthServed) {
      // Probes need no credentials: health skips the interceptors (as on server.grpc()).
      addToServer(server, bindHealth(this.#health, () => this.#options().healthWatchIntervalMs ?? 5000), new CallPipeline(() => undefined), undefined);
      this.#healthServed = true;
    }
    if (fromProto.packageDefinition !== undefined) this.#protoPackages = fromProto.packageDefinition;
    if (this.#options().reflection === true) this.#syncReflection(server);
    this.#version = this.#registry.version;
    this.#configRef = config;
  }

  /**
   * Reflection over everything served now. grpc-js takes a service once, and
   * @grpc/reflection indexes its files once, so the reflection methods are
   * registered once and call whichever index the latest sync built.
   */
  #syncReflection(server: ServerEngine): void {
    const packages: PackageDefinition = { ...this.#protoPackages };
    for (const service of this.#registry.services()) {
      const entry = service.descriptor === undefined ? undefined : reflectionEntry(service.descriptor);
      if (entry !== undefined) Object.assign(packages, entry);
    }
    const handlers = new Map<string, grpc.UntypedHandleCall>();
    const definitions: grpc.ServiceDefinition[] = [];
    const capture = {
      addService: (definition: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void => {
        definitions.push(definition);
        for (const [name, method] of Object.entries(definition)) handlers.set(method.path, impl[name] as grpc.UntypedHandleCall);
      },
    };
    new ReflectionService(packages).addToServer(capture as unknown as ReflectionHost);
    const first = this.#reflection === undefined;
    this.#reflection = handlers;
    if (!first) return;
    for (const definition of definitions) {
      const impl: grpc.UntypedServiceImplementation = {};
      for (const [name, method] of Object.entries(definition)) {
        impl[name] = ((call: grpc.ServerDuplexStream<unknown, unknown>) => (this.#reflection?.get(method.path) as (c: typeof call) => void)(call)) as grpc.UntypedHandleCall;
      }
      server.addService(definition, impl);
    }
  }

  /** Hands an h2c connection (already sniffed by the mux) to the gRPC server. Do not resume it afterwards. */
  inject(socket: Duplex): void {
    this.sync();
    if (!this.#core.dispatcher.draining) this.#health.restart();
    const core = this.#core;
    if (core.observed) {
      const connectionId = nextConnectionId('grpc');
      const opened = Date.now();
      core.emit({ type: 'connection-open', protocol: 'grpc', connectionId });
      socket.once('close', () => core.emit({ type: 'connection-close', protocol: 'grpc', connectionId, durationMs: Date.now() - opened }));
    }
    this.server.inject(socket);
  }

  /**
   * Serves a unary route through fw's call port (grpc-call-port.ts): the
   * engine's call object is the port itself on the default engine, so one
   * unary call crosses no grpc-js-shaped adapter.
   */
  #serveFor(route: GrpcRoute): ServeUnary {
    const { run, methodFor, toGateway, fromGateway } = this.#routeSteps(route);
    return (port) => {
      if (port.request instanceof RejectedPayload) {
        port.fail(this.#status(invalidArgument(port.request)));
        return;
      }
      const watch = new CancelWatch(port);
      const { resolved, passing } = methodFor();
      const raw = requestFor(resolved, passing !== undefined, port.request);
      const json = cameAsJson(raw);
      const method = raw instanceof RawMessage ? passing : resolved;
      const { promise, reply, context } = run(port, method, raw instanceof Undecodable ? raw : toGateway(raw), () => watch.signal, json, watch);
      const done = { call: port, reply, watch, context };
      promise.then((result) => answer(done, port, null, fromGateway(result, json, resolved)), (error: unknown) => answer(done, port, this.#status(error))).catch((error: unknown) => answer(done, port, this.#status(error)));
    };
  }

  /** A streaming route's handler in grpc-js's shape (both engines take it). */
  #handlerFor(route: GrpcRoute): (...args: unknown[]) => void {
    const { run, methodFor, fromGateway, requestStream, toGateway } = this.#routeSteps(route);
    switch (route.streaming) {
      case 'client':
        return (call, callback) => {
          const c = call as grpc.ServerReadableStream<unknown, unknown>;
          const cb = callback as grpc.sendUnaryData<unknown>;
          const watch = new CancelWatch(c);
          const state = { json: false };
          let replyHeaders: MetadataMap | undefined;
          const { resolved, passing } = methodFor();
          const requests = requestStream(c, state, () => replyHeaders as MetadataMap, resolved, passing !== undefined);
          const { promise, reply, context } = run(c, passing ?? resolved, requests, () => watch.signal, false, watch);
          replyHeaders = reply;
          const done = { call: c, reply, watch, context };
          const sink: ReplySink = { reply: (value, trailers) => cb(null, value, trailers === undefined ? undefined : wire(trailers as MetadataMap)), fail: (status) => cb({ code: status.code, details: status.details, metadata: wire(status.metadata) }) };
          promise.then((result) => answer(done, sink, null, fromGateway(result, state.json, resolved)), (error: unknown) => answer(done, sink, this.#status(error))).catch((error: unknown) => answer(done, sink, this.#status(error)));
        };
      default: {
        const clientStreams = route.streaming === 'bidirectional';
        return (call) => {
          const c = call as grpc.ServerDuplexStream<unknown, unknown>;
          const single = (c as unknown as grpc.ServerWritableStream<unknown, unknown>).request;
          if (!clientStreams && single instanceof RejectedPayload) {
            c.emit('error', this.#status(invalidArgument(single)));
            return;
          }
          // Streaming calls read the signal at once: it is their cleanup signal (a request stream may outlive the response).
          const controller = new CancelWatch(c);
          const { resolved, passing } = methodFor();
          const raw = clientStreams ? undefined : requestFor(resolved, passing !== undefined, (c as unknown as grpc.ServerWritableStream<unknown, unknown>).request);
          // A bidi reply follows the format of the latest request message (JSON once one came as JSON).
          const state = { json: cameAsJson(raw) };
          let replyHeaders: MetadataMap | undefined;
          const request = clientStreams ? requestStream(c, state, () => replyHeaders as MetadataMap, resolved, passing !== undefined) : raw instanceof Undecodable ? raw : toGateway(raw);
          const method = clientStreams || raw instanceof RawMessage ? (passing ?? resolved) : resolved;
          const { promise, reply, context } = run(c, method, request, controller.signal, state.json);
          replyHeaders = reply;
          let headersSent = false;
          const sendHeaders = (): void => {
            if (!headersSent) c.sendMetadata(wire(withHandlerHeaders(reply, context, c)));
            headersSent = true;
          };
          // A drain past its timeout ends the stream with UNAVAILABLE before the connection is cut.
          let terminated = false;
          const untrack = this.#core.dispatcher.trackStream((error) => {
            if (controller.signal.aborted) return;
            terminated = true;
            sendHeaders();
            c.emit('error', this.#status(error));
          });
          promise
            .then(async (result) => {
              if (result === null || typeof result !== 'object' || !(Symbol.asyncIterator in result)) {
                throw ServiceErrors.notIterable();
              }
              for await (const item of result as AsyncIterable<unknown>) {
                if (controller.signal.aborted || terminated) return;
                sendHeaders();
                if (!c.write(fromGateway(item, state.json, resolved))) await drained(c, controller.signal);
              }
              if (terminated) return;
              sendHeaders();
              c.end(handlerTrailers(context));
            })
            .catch((error: unknown) => {
              if (controller.signal.aborted || terminated) return;
              sendHeaders();
              const status = this.#status(error);
              status.metadata?.merge(handlerTrailers(context));
              c.emit('error', status);
            })
            .finally(untrack);
        };
      }
    }
  }

  /** What every route's handler does: start the dispatch, pick the method, map requests and replies. */
  #routeSteps(route: GrpcRoute) {
    const config = this.#config;
    /**
     * Starts one dispatch. Response headers (with the trace id and whatever
     * the handler set through `context.call`) go out with the first message
     * or the status (`sendHeaders()`), so headers, message and status of a
     * unary call leave in one write.
     */
    const run = (call: AnyCall, resolved: ResolvedMethod | undefined, request: unknown, signal: AbortSignal | (() => AbortSignal), json: boolean, cancellation?: CancelWatch): { promise: Promise<unknown>; reply: MetadataMap; context: RequestContext } => {
      const md = call.metadata;
      // The configured correlation header (monitoring's correlationHeader, default x-trace-id), as on every transport.
      const traceHeader = this.#core.traceHeader;
      const tracing = tracingFrom(firstString(md, traceHeader), firstString(md, 'traceparent'));
      const reply = new MetadataMap();
      reply.set(traceHeader, tracing.traceId);
      // Replies to gRPC+JSON requests are JSON (message-format.ts).
      if (json) reply.set('content-type', GRPC_JSON_CONTENT_TYPE);
      const deadline = deadlineOf(call);
      const context = grpcContext(call.getPeer(), md, route.definition.path, tracing, signal, () => requestWasCompressed(call), deadline, cancellation);
      if (request instanceof Undecodable) return { promise: this.#core.dispatcher.refuse(resolved, route.service, route.method, decodeFailure(request.error), context, md), reply, context };
      if (this.#core.observed) this.#core.emit({ type: 'message', protocol: 'grpc', direction: 'in', bytes: 0 });
      const callDeadline = deadline === undefined ? undefined : { at: deadline, ms: Math.max(1, deadline - Date.now()) };
      return { promise: this.#core.dispatcher.call(resolved, route.service, route.method, request, context, md, callDeadline), reply, context };
    };
    /** The method to run: its byte-forwarding twin when binary requests may pass through (raw-requests.ts), else itself. */
    const methodFor = (): { resolved: ResolvedMethod | undefined; passing: ResolvedMethod | undefined } => {
      const resolved = this.#core.dispatcher.resolve(route.service, route.method);
      return { resolved, passing: this.#core.dispatcher.passThrough(resolved) };
    };
    const toGateway = (v: unknown): unknown => {
      const t = route.mapped ? config().transformRequest : undefined;
      return t === undefined ? v : t(v, route.method);
    };
    /** The reply message: the configured transform, then JSON text when the request came as gRPC+JSON. */
    const fromGateway = (v: unknown, json: boolean, resolved: ResolvedMethod | undefined): unknown => {
      const t = route.mapped ? config().transformResponse : undefined;
      const value = t === undefined ? v : t(v, route.method);
      if (!json || resolved?.toJSON === undefined) return value;
      if (value instanceof RawMessage) return new JsonReply(Buffer.from(JSON.stringify(resolved.toJSON(decodedReply(resolved, value)) ?? {})));
      return new JsonReply(Buffer.from(JSON.stringify(resolved.toJSON(value) ?? {})));
    };
    /** The request stream for the handler: undecodable items end it; `state.json` follows the items' format. */
    const requestStream = (call: AnyCall, state: { json: boolean }, reply: () => MetadataMap, resolved: ResolvedMethod | undefined, passing: boolean): AsyncIterable<unknown> =>
      mapStream(call as never, (raw) => {
        const item = requestFor(resolved, passing, raw);
        if (item instanceof Undecodable) throw decodeFailure(item.error, 'Stream message');
        state.json = cameAsJson(item);
        if (state.json) reply().set('content-type', GRPC_JSON_CONTENT_TYPE);
        return toGateway(item);
      });
    return { run, methodFor, toGateway, fromGateway, requestStream };
  }

  #status(error: unknown): FwStatusObject {
    const se: ServiceError = toServiceError(error);
    const custom = this.#core.renderError(se, 'grpc') as { code?: number; message?: string } | undefined;
    const trailer = new MetadataMap();
    trailer.set('x-error-code', se.code);
    if (se.details !== undefined) {
      try {
        trailer.set('x-error-details', JSON.stringify(se.details));
      } catch {
        // Details that cannot be serialised stay server-side.
      }
    }
    const code = custom?.code ?? grpcStatusOf(se);
    const message = custom?.message ?? se.message;
    // Refused messages carry the rich error model too: google.rpc.BadRequest, one entry per violation.
    if (se.code === 'VALIDATION_ERROR' && Array.isArray(se.details)) trailer.set(STATUS_DETAILS_KEY, encodeBadRequestStatus(code, message, se.details as FieldViolation[]));
    return { code, details: message, metadata: trailer };
  }

  /**
   * Graceful stop: GOAWAY on every connection, running calls finish, then
   * resolves. New streams are refused.
   */
  drain(): Promise<void> {
    // Probes see NOT_SERVING as soon as close() begins; Watch streams get it, then end.
    this.#health.shutdown();
    return this.#server === undefined ? Promise.resolve() : this.#server.shutdown();
  }

  /** Stops serving: finishes nothing, closes every session. */
  close(): void {
    const server = this.#server;
    this.#server = undefined;
    this.#registered.clear();
    this.#version = -1;
    this.#configRef = undefined;
    this.#reflection = undefined;
    this.#healthServed = false;
    server?.forceShutdown();
  }
}

/** Where a unary or client-streaming answer goes: the call's port, or grpc-js's callback. */
type ReplySink = Pick<GrpcUnaryPort, 'reply' | 'fail'>;

/** Hands a unary answer over: marks the call finished, sends its response headers, then the answer with the handler's trailers. */
function answer(
  done: { call: GrpcUnaryPort | grpc.ServerReadableStream<unknown, unknown>; reply: MetadataMap; watch: { finish(): void }; context: RequestContext },
  sink: ReplySink,
  error: FwStatusObject | null,
  value?: unknown,
): void {
  done.watch.finish();
  done.call.sendMetadata(wire(withHandlerHeaders(done.reply, done.context, done.call)));
  const trailers = handlerTrailers(done.context);
  if (error === null) sink.reply(value, trailers);
  else {
    error.metadata.merge(trailers);
    sink.fail(error);
  }
}

/**
 * The gateway's own response headers plus those the handler set through
 * `context.call`; also hands the handler's compression choice to the framing
 * hooks, which decide `grpc-encoding` as these headers go out.
 */
function withHandlerHeaders(reply: MetadataMap, context: RequestContext, source: AnyCall): MetadataMap {
  const call = context.call;
  if (!(call instanceof CollectedCallMetadata)) return reply;
  if (call.compression !== undefined) chooseCompression(source, call.compression);
  if (call.headers === undefined) return reply;
  const merged = reply.clone();
  merged.merge(toMetadata(call.headers));
  return merged;
}

/** The trailers the handler set through `context.call` (already validated when set). */
function handlerTrailers(context: RequestContext): MetadataMap {
  const call = context.call;
  return call instanceof CollectedCallMetadata && call.trailers !== undefined ? toMetadata(call.trailers) : new MetadataMap();
}


function drained(stream: grpc.ServerDuplexStream<unknown, unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    stream.on('drain', done);
    signal.addEventListener('abort', done);
  });
}

/** The caller's deadline in epoch ms, if it set one (grpc-js gives Infinity otherwise). */
function deadlineOf(call: AnyCall): number | undefined {
  const d = call.getDeadline();
  const ms = d instanceof Date ? d.getTime() : d;
  return Number.isFinite(ms) ? ms : undefined;
}
