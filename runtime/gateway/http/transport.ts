/**
 * The HTTP/JSON transport: a connect-style `(req, res, next?)` handler, so it
 * serves the gateway's own port and mounts on an fw (or Express, or bare
 * node:http) app alike. Bodies: identity-encoded UTF-8 JSON takes a short
 * fast path (json-body.ts); everything else goes through the body reader
 * (core/read-body.ts, body-parser's behaviour). Both enforce the 1 MiB default and refuse prototype keys. CORS is
 * the `cors` package.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../../core/request-context';
import bytes from 'bytes';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { catalogueError, decodeFailure, type ServiceError, ServiceErrors, toServiceError, transformError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import type { ServiceRegistry } from '../../rpc/registry';
import { HeaderTracing, tracingFrom } from '../../rpc/tracing';
import { HttpCallContext } from '../http-exchange';
import { httpDeadline, type CallDeadline } from '../../rpc/deadline';
import { dataEnvelopeJson } from '../wire/reply-json';
import { buildRequest, jsonBodyParser, readBody, type ParsedRequest, type TransformRequest } from './call-reader';
import { unacceptedContentType } from './content-type';
import { httpContext } from './context';
import { HttpReplySink, isSse, type HttpReplyDeps } from './reply-sink';
import { getPath, jsonFieldPath, RouteTable, type RouteMatch } from './routes';
import type { TransportAdapter } from '../transport-adapter';

/** `configureHTTP(config)` (spec 4.10). */
export interface HttpGatewayConfig {
  /** Prefix of the default `POST {basePath}/<Service>/<method>` binding and of `routes`; default `/api`. */
  basePath?: string;
  /** `'GET /users/:id' → 'UserService.getUser'` (also `{id}` templates). */
  routes?: Record<string, string>;
  enableCORS?: boolean;
  /** Options for the `cors` package when CORS is on. */
  cors?: cors.CorsOptions;
  /** Body limit (bytes or a string like `'1mb'`). */
  maxBodySize?: number | string;
  /** Builds the handler's request; default: body merged with path parameters, or query + params without a body. */
  transformRequest?: TransformRequest;
  /** Builds the reply body; default `{data: result}`. */
  transformResponse?: (result: unknown, method: string, req: IncomingMessage) => unknown;
}

/** Connect-style handler; `next` is called for paths the gateway does not serve. */
export type HttpGatewayHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/** What the HTTP transport needs from the gateway. */
export interface HttpTransportDeps {
  core: GatewayCore;
  registry: ServiceRegistry;
  config: () => HttpGatewayConfig;
  /** Prometheus text when monitoring is on. */
  metrics: () => { text(): Promise<string>; contentType: string } | undefined;
  /** What `GET /ready` answers (200 when `ready`, else 503), or undefined to leave `/ready` to the routes. */
  readiness: () => { ready: boolean; status: 'ready' | 'not ready'; [detail: string]: unknown } | undefined;
}

/** Origin-form request target; a host app may hand over an absolute URL (`http://h/p?q`). */
function requestTarget(url: string | undefined): string {
  if (url === undefined || url === '') return '/';
  if (url.charCodeAt(0) === 47 /* / */) return url;
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return '/';
  }
}

function parseQuery(search: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (search === '') return out;
  for (const [k, v] of new URLSearchParams(search)) out[k] = v;
  return out;
}

/** The HTTP transport; `handle` is the connect-style handler. */
export class HttpTransport implements TransportAdapter {
  readonly transport = 'http' as const;
  readonly #deps: HttpTransportDeps;
  #routes: RouteTable | undefined = undefined;
  #routesVersion = -1;
  #configRef: HttpGatewayConfig | undefined = undefined;
  #parser: RequestHandler | undefined = undefined;
  #limit = 1 << 20;
  #cors: RequestHandler | undefined = undefined;

  readonly #tracing: HeaderTracing;
  readonly #replyDeps: HttpReplyDeps;

  /** Its requests ride the listener's HTTP connections, which the listener drains (drainHttp) and cuts. */
  drain(): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing of its own to cut: the listener closes the HTTP connections. */
  close(): void {}

  constructor(deps: HttpTransportDeps) {
    this.#deps = deps;
    this.#tracing = new HeaderTracing(() => deps.core.traceHeader);
    const core = deps.core;
    this.#replyDeps = {
      get traceHeader() {
        return core.traceHeader;
      },
      draining: () => core.dispatcher.draining,
      render: (error) => this.#render(error),
    };
  }

  /** Rebuilds derived state when services or configuration changed since the last request. */
  #prepare(): RouteTable {
    const config = this.#deps.config();
    if (this.#routes === undefined || this.#routesVersion !== this.#deps.registry.version || this.#configRef !== config) {
      this.#routes = new RouteTable(this.#deps.registry, config.basePath ?? '/api', config.routes ?? {});
      this.#routesVersion = this.#deps.registry.version;
      this.#configRef = config;
      this.#limit = typeof config.maxBodySize === 'number' ? config.maxBodySize : (bytes.parse(config.maxBodySize ?? '1mb') ?? 1 << 20);
      this.#parser = jsonBodyParser(this.#limit);
      this.#cors = config.enableCORS === true ? (cors(config.cors) as unknown as RequestHandler) : undefined;
    }
    return this.#routes;
  }

  /** The connect-style handler. */
  readonly handle: HttpGatewayHandler = (req, res, next) => {
    let routes: RouteTable;
    try {
      routes = this.#prepare();
    } catch (e) {
      this.#fail(res, toServiceError(e), undefined);
      return;
    }
    if (this.#cors !== undefined) {
      this.#cors(req as never, res as never, (err?: unknown) => {
        if (err !== undefined) this.#fail(res, toServiceError(err), undefined);
        else if (!res.headersSent) this.#route(routes, req as ParsedRequest, res, next);
      });
      return;
    }
    this.#route(routes, req as ParsedRequest, res, next);
  };

  #route(routes: RouteTable, req: ParsedRequest, res: ServerResponse, next: ((err?: unknown) => void) | undefined): void {
    const url = requestTarget(req.url);
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const verb = req.method ?? 'GET';
    if (verb === 'GET' && path === '/metrics') {
      const metrics = this.#deps.metrics();
      if (metrics !== undefined) {
        metrics.text().then(
          (text) => {
            res.statusCode = 200;
            res.setHeader('Content-Type', metrics.contentType);
            res.end(text);
          },
          (e: unknown) => this.#fail(res, toServiceError(e), undefined),
        );
        return;
      }
    }
    if (verb === 'GET' && path === '/ready') {
      const readiness = this.#deps.readiness();
      if (readiness !== undefined) {
        // 503 while shutting down and until discovery's first instance lists are in; a lost discovery backend is detail, not unreadiness (last-known instances serve).
        res.statusCode = readiness.ready ? 200 : 503;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(JSON.stringify(readiness));
        return;
      }
    }
    const match = routes.match(verb, path);
    if (match === undefined) {
      if (next !== undefined) {
        next();
        return;
      }
      const tracing = tracingFrom(undefined);
      const allow = routes.allowedVerbs(path);
      if (allow.length > 0) {
        res.setHeader('Allow', allow.join(', '));
        this.#fail(res, ServiceErrors.methodNotAllowed(verb, path, allow), tracing.traceId);
        return;
      }
      this.#fail(res, catalogueError('NOT_FOUND', `No gateway route for ${verb} ${path}`, { path, method: verb }), tracing.traceId);
      return;
    }
    const query = parseQuery(q === -1 ? '' : url.slice(q + 1));
    if (req.body !== undefined || this.#parser === undefined) {
      // A host app that parsed the body (express.json()) has read it already: its type is the host's concern.
      this.#dispatch(req, res, match, path, query);
      return;
    }
    const unaccepted = unacceptedContentType(req.headers);
    if (unaccepted !== undefined) {
      req.resume();
      this.#fail(res, unaccepted, this.#tracing.read(req.headers).traceId);
      return;
    }
    readBody(req, res, this.#parser, this.#limit, (refusal) => {
      if (refusal === undefined) {
        this.#dispatch(req, res, match, path, query);
        return;
      }
      // The rest of a refused body is never read: the connection cannot carry another request.
      if (refusal.statusCode === 413) res.setHeader('Connection', 'close');
      this.#fail(res, refusal, this.#tracing.read(req.headers).traceId);
    });
  }

  #dispatch(req: ParsedRequest, res: ServerResponse, match: RouteMatch, path: string, query: Record<string, string>): void {
    const core = this.#deps.core;
    const config = this.#configRef ?? {};
    const headers = req.headers;
    const tracing = this.#tracing.read(headers);
    const resolved = core.dispatcher.resolve(match.service, match.method);
    let request: unknown;
    let refusal: ServiceError | undefined;
    try {
      request = buildRequest(req, match, query, resolved, config.transformRequest);
    } catch (e) {
      refusal = decodeFailure(e, 'Request');
    }
    const deadline = httpDeadline(headers);
    const context = httpContext(req, headers, res, path, query, match.params, tracing, deadline);
    const sink = new HttpReplySink(res, this.#replyDeps, tracing.traceId, context);
    if (deadline !== undefined) this.#armDeadline(deadline, res, context, sink);
    const running = refusal === undefined ? core.dispatcher.call(resolved, match.service, match.method, request, context, req, deadline) : core.dispatcher.refuse(resolved, match.service, match.method, refusal, context, req);
    running.then(
      (result) => {
        try {
          this.#respond(req, res, result, resolved, match, config, context, sink);
        } catch (error) {
          // toJSON/transformResponse/JSON.stringify failed: the handler's result is unusable.
          sink.fail(toServiceError(error));
        }
      },
      (error: unknown) => sink.fail(toServiceError(error)),
    );
  }

  /** Writes a handler's result: one JSON reply, or an NDJSON/SSE stream. Throws when the result cannot be encoded. */
  #respond(
    req: ParsedRequest,
    res: ServerResponse,
    result: unknown,
    resolved: ResolvedMethod | undefined,
    match: RouteMatch,
    config: HttpGatewayConfig,
    context: RequestContext,
    sink: HttpReplySink,
  ): void {
    if (res.destroyed) return;
    const streaming = resolved?.streaming ?? 'none';
    if (streaming === 'server' || streaming === 'bidirectional') {
      if (result === null || typeof result !== 'object' || !(Symbol.asyncIterator in result)) {
        sink.fail(ServiceErrors.notIterable());
        return;
      }
      sink.stream(isSse(req), context.signal, match.grpcGateway === true);
      // A drain past its timeout ends the stream with an error line before the connection is cut.
      const untrack = this.#deps.core.dispatcher.trackStream((error) => sink.fail(error));
      void pumpStream(result as AsyncIterable<unknown>, resolved?.toJSON, sink).finally(untrack);
      return;
    }
    const whole = resolved?.toJSON === undefined ? result : resolved.toJSON(result);
    const data = match.responseBody === undefined ? whole : getPath(whole, jsonFieldPath(match.responseBody));
    if (config.transformResponse !== undefined) sink.message(JSON.stringify(config.transformResponse(data, match.method, req)));
    // grpc-gateway answers the bare message (or its response_body field); the default and configured routes keep spec 4.10's `{data}`.
    else sink.message(match.grpcGateway === true ? bareJson(data) : dataEnvelopeJson(data));
  }

  /**
   * `grpc-timeout` bounds the call: once it passes, the caller gets
   * DEADLINE_EXCEEDED (504, or an NDJSON/SSE error line when the stream has
   * begun) and the handler's signal aborts.
   */
  #armDeadline(deadline: CallDeadline, res: ServerResponse, context: HttpCallContext, sink: HttpReplySink): void {
    const timer = setTimeout(() => {
      sink.fail(ServiceErrors.deadlineExceeded(deadline.ms));
      context.abort();
    }, deadline.ms);
    res.once('close', () => clearTimeout(timer));
  }

  /** The user's transformError rendering, else the default: for an error reply and for a stream's error line alike. */
  #render(error: ServiceError): { status?: number; body?: unknown } {
    const custom = this.#deps.core.renderError(error, 'http') as { status?: number; body?: unknown } | undefined;
    return custom ?? transformError(error, 'http');
  }

  /** An error reply before a call exists (routing, CORS, body refusals). */
  #fail(res: ServerResponse, error: ServiceError, traceId: string | undefined): void {
    new HttpReplySink(res, this.#replyDeps, traceId).fail(error);
  }
}

/** A bare reply body: a response_body field that is unset still answers valid JSON. */
function bareJson(data: unknown): string {
  return JSON.stringify(data) ?? 'null';
}

/** Writes a server stream's items through `sink`; a failure after the first item becomes its error line. */
async function pumpStream(items: AsyncIterable<unknown>, toJSON: ((v: unknown) => unknown) | undefined, sink: HttpReplySink): Promise<void> {
  try {
    for await (const item of items) {
      if (sink.done) return;
      await sink.item(JSON.stringify(toJSON === undefined ? item : toJSON(item)));
    }
    sink.end();
  } catch (error) {
    sink.fail(toServiceError(error));
  }
}
