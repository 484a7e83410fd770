/**
 * The HTTP/JSON transport: a connect-style `(req, res, next?)` handler, so it
 * serves the gateway's own port and mounts on an fw (or Express, or bare
 * node:http) app alike. Bodies: identity-encoded UTF-8 JSON takes a short
 * fast path (json-body.ts); everything else goes through body-parser's JSON
 * parser. Both enforce the 1 MiB default and refuse prototype keys. CORS is
 * the `cors` package.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { TOO_DEEP_MESSAGE, valueTooDeep } from '../../core/json-depth';
import { bytesMayHavePrototypeKeys, hasPrototypeKeys } from '../../core/prototype-keys';
import type { RequestContext, TracingInfo } from '../../core/request-context';
import bodyParser from 'body-parser';
import bytes from 'bytes';
import cors from 'cors';
import type { RequestHandler } from 'express';
import { catalogueError, decodeFailure, type ServiceError, ServiceErrors, toServiceError, transformError } from '../errors';
import type { GatewayCore } from '../gateway-core';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import type { ServiceRegistry } from '../../rpc/registry';
import { tracingFrom } from '../tracing';
import { HttpCallContext } from '../http-exchange';
import { deadlineIn, grpcTimeoutHeader } from '../../rpc/deadline';
import { dataEnvelopeJson } from '../wire/reply-json';
import { httpContext, writeCallMetadata } from './context';
import { isPlainJsonBody, readJsonBody } from './json-body';
import { getPath, jsonFieldPath, RouteTable, setPath, type RouteMatch } from './routes';
import { applyQuery } from './query-fields';
import { endStream, isSse, writeStream } from './streaming';
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
  transformRequest?: (req: IncomingMessage & { body?: unknown; params?: Record<string, string> }, method: string) => unknown;
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
  /** Discovery's readiness detail, served at `GET /ready` when discovery is configured. */
  readiness: () => { ready: boolean; services: Record<string, unknown> } | undefined;
}

type ParsedRequest = IncomingMessage & { body?: unknown; params?: Record<string, string>; query?: unknown };

/** Marks bodies that might carry prototype keys; only those are walked after parsing (a JSON.parse reviver would slow every request). */
const SUSPECT = Symbol('fw.gateway.suspectBody');

function flagSuspect(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  if (bytesMayHavePrototypeKeys(buf)) (req as IncomingMessage & { [SUSPECT]?: boolean })[SUSPECT] = true;
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

/** The request's query string as URLSearchParams. */
function searchOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
}

function parseQuery(search: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (search === '') return out;
  for (const [k, v] of new URLSearchParams(search)) out[k] = v;
  return out;
}

function bodyError(err: unknown): ServiceError {
  const e = err as { type?: string; status?: number; limit?: number; message?: string };
  if (e.type === 'entity.too.large' || e.status === 413) return ServiceErrors.tooLarge('Request body', e.limit ?? 0);
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') return catalogueError('UNSUPPORTED_MEDIA_TYPE', e.message ?? 'Unsupported body encoding');
  if (e.type === 'entity.parse.failed') return catalogueError('INVALID_JSON', `Request body is not valid JSON: ${e.message ?? ''}`.trim());
  return catalogueError('BAD_REQUEST', e.message ?? 'Unreadable request body');
}

function* arrayItems(value: unknown[]): Iterable<unknown> {
  yield* value;
}

async function* toAsync(items: Iterable<unknown>, fromJSON: ((v: unknown) => unknown) | undefined): AsyncIterable<unknown> {
  for (const item of items) yield fromJSON === undefined ? item : fromJSON(item);
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

  #traceName = '';
  #traceKey = '';

  /** Its requests ride the listener's HTTP connections, which the listener drains (drainHttp) and cuts. */
  drain(): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing of its own to cut: the listener closes the HTTP connections. */
  close(): void {}

  constructor(deps: HttpTransportDeps) {
    this.#deps = deps;
  }

  /** The request's trace id (header or traceparent) or a fresh one; the lower-cased header name is cached per name. */
  #tracing(headers: IncomingHttpHeaders): TracingInfo {
    const name = this.#deps.core.traceHeader;
    if (name !== this.#traceName) {
      this.#traceName = name;
      this.#traceKey = name.toLowerCase();
    }
    return tracingFrom(headers[this.#traceKey], headers.traceparent);
  }

  /** Rebuilds derived state when services or configuration changed since the last request. */
  #prepare(): RouteTable {
    const config = this.#deps.config();
    if (this.#routes === undefined || this.#routesVersion !== this.#deps.registry.version || this.#configRef !== config) {
      this.#routes = new RouteTable(this.#deps.registry, config.basePath ?? '/api', config.routes ?? {});
      this.#routesVersion = this.#deps.registry.version;
      this.#configRef = config;
      this.#limit = typeof config.maxBodySize === 'number' ? config.maxBodySize : (bytes.parse(config.maxBodySize ?? '1mb') ?? 1 << 20);
      this.#parser = bodyParser.json({ limit: config.maxBodySize ?? '1mb', type: () => true, strict: false, verify: flagSuspect }) as unknown as RequestHandler;
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
        // 503 until the first instance lists are in; a lost discovery backend is detail, not unreadiness (last-known instances serve).
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
      this.#dispatch(req, res, match, path, query);
      return;
    }
    // req.headers is a getter with a megamorphic symbol load inside: read it once per request here.
    const headers = req.headers;
    if (isPlainJsonBody(headers)) {
      readJsonBody(req, headers, this.#limit, (outcome) => {
        if (!outcome.ok) {
          const tracing = this.#tracing(headers);
          if (outcome.error.statusCode === 413) res.setHeader('Connection', 'close');
          this.#fail(res, outcome.error, tracing.traceId);
          return;
        }
        if (outcome.suspect && hasPrototypeKeys(outcome.body)) {
          const tracing = this.#tracing(headers);
          this.#fail(res, ServiceErrors.prototypeKey(), tracing.traceId);
          return;
        }
        req.body = outcome.body;
        this.#dispatch(req, res, match, path, query);
      });
      return;
    }
    this.#parser(req as never, res as never, (err?: unknown) => {
      if (err !== undefined) {
        const tracing = this.#tracing(req.headers);
        this.#fail(res, bodyError(err), tracing.traceId);
        return;
      }
      if (valueTooDeep(req.body)) {
        this.#fail(res, catalogueError('INVALID_ARGUMENT', TOO_DEEP_MESSAGE), this.#tracing(req.headers).traceId);
        return;
      }
      if ((req as ParsedRequest & { [SUSPECT]?: boolean })[SUSPECT] === true && hasPrototypeKeys(req.body)) {
        const tracing = this.#tracing(req.headers);
        this.#fail(res, ServiceErrors.prototypeKey(), tracing.traceId);
        return;
      }
      this.#dispatch(req, res, match, path, query);
    });
  }

  #dispatch(req: ParsedRequest, res: ServerResponse, match: RouteMatch, path: string, query: Record<string, string>): void {
    const core = this.#deps.core;
    const config = this.#configRef ?? {};
    const headers = req.headers;
    const tracing = this.#tracing(headers);
    const resolved = core.dispatcher.resolve(match.service, match.method);
    let request: unknown;
    let refusal: ServiceError | undefined;
    try {
      request = this.#buildRequest(req, match, query, resolved, config);
    } catch (e) {
      refusal = decodeFailure(e, 'Request');
    }
    const context = httpContext(req, headers, res, path, query, match.params, tracing);
    const timeout = grpcTimeoutHeader(headers['grpc-timeout']);
    const deadline = timeout === undefined ? undefined : deadlineIn(timeout);
    if (timeout !== undefined) this.#armDeadline(timeout, req, res, context, tracing.traceId);
    const running = refusal === undefined ? core.dispatcher.call(resolved, match.service, match.method, request, context, req, deadline) : core.dispatcher.refuse(resolved, match.service, match.method, refusal, context, req);
    running.then(
      (result) => {
        try {
          this.#respond(req, res, result, resolved, match, config, context, tracing.traceId);
        } catch (error) {
          // toJSON/transformResponse/JSON.stringify failed: the handler's result is unusable.
          this.#fail(res, toServiceError(error), tracing.traceId);
        }
      },
      (error: unknown) => {
        writeCallMetadata(res, context);
        this.#fail(res, toServiceError(error), tracing.traceId);
      },
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
    traceId: string,
  ): void {
    if (res.destroyed) return;
    const streaming = resolved?.streaming ?? 'none';
    if (streaming === 'server' || streaming === 'bidirectional') {
      if (result === null || typeof result !== 'object' || !(Symbol.asyncIterator in result)) {
        this.#fail(res, ServiceErrors.notIterable(), traceId);
        return;
      }
      const sse = isSse(req);
      res.setHeader(this.#deps.core.traceHeader, traceId);
      writeCallMetadata(res, context);
      const render = (error: unknown): unknown => this.#render(toServiceError(error)).body;
      // A drain past its timeout ends the stream with an error line before the connection is cut.
      const untrack = this.#deps.core.dispatcher.trackStream((error) => endStream(res, sse, render(error)));
      void writeStream(res, result as AsyncIterable<unknown>, sse, resolved?.toJSON, context.signal, render).finally(untrack);
      return;
    }
    const whole = resolved?.toJSON === undefined ? result : resolved.toJSON(result);
    const data = match.responseBody === undefined ? whole : getPath(whole, jsonFieldPath(match.responseBody));
    const json = config.transformResponse === undefined ? dataEnvelopeJson(data) : JSON.stringify(config.transformResponse(data, match.method, req));
    writeCallMetadata(res, context);
    // One writeHead with a flat header list: cheaper than three setHeader calls.
    const head = ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(json)), this.#deps.core.traceHeader, traceId];
    // While close() drains, every answer ends its connection.
    if (this.#deps.core.dispatcher.draining) head.push('Connection', 'close');
    res.writeHead(200, head);
    res.end(json);
  }

  #buildRequest(req: ParsedRequest, match: RouteMatch, query: Record<string, string>, resolved: ResolvedMethod | undefined, config: HttpGatewayConfig): unknown {
    if (config.transformRequest !== undefined) {
      req.params = match.params;
      return config.transformRequest(req, match.method);
    }
    const streaming = resolved?.streaming ?? 'none';
    const fromJSON = resolved?.fromJSON;
    const param = resolved?.paramValue;
    if (streaming === 'client' || streaming === 'bidirectional') {
      // A client stream over HTTP is a JSON array body, one element per message.
      if (!Array.isArray(req.body)) throw ServiceErrors.badRequest('A client-streaming method over HTTP takes a JSON array body');
      return toAsync(arrayItems(req.body), fromJSON);
    }
    let json: unknown;
    const body = req.body;
    if (body === undefined || body === null) {
      const merged: Record<string, unknown> = {};
      if (Object.keys(query).length > 0) applyQuery(merged, searchOf(req), match.inputSchema);
      for (const k of Object.keys(match.params)) setPath(merged, jsonFieldPath(k), param === undefined ? match.params[k] : param(k, match.params[k] as string));
      json = merged;
    } else if (match.body === '*' || match.body === undefined) {
      if (typeof body !== 'object' || Array.isArray(body)) throw ServiceErrors.badRequest('Request body must be a JSON object');
      const keys = Object.keys(match.params);
      if (keys.length === 0) json = body;
      else {
        const merged = { ...(body as Record<string, unknown>) };
        for (const k of keys) setPath(merged, jsonFieldPath(k), param === undefined ? match.params[k] : param(k, match.params[k] as string));
        json = merged;
      }
    } else {
      const merged: Record<string, unknown> = {};
      if (Object.keys(query).length > 0) applyQuery(merged, searchOf(req), match.inputSchema);
      // The body field first, so a path variable inside it (`{book.name}` with body: "book") is kept.
      setPath(merged, jsonFieldPath(match.body), typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : body);
      for (const k of Object.keys(match.params)) setPath(merged, jsonFieldPath(k), param === undefined ? match.params[k] : param(k, match.params[k] as string));
      json = merged;
    }
    return fromJSON === undefined ? json : fromJSON(json);
  }

  /**
   * `grpc-timeout` bounds the call: once it passes, the caller gets
   * DEADLINE_EXCEEDED (504, or an NDJSON/SSE error line when the stream has
   * begun) and the handler's signal aborts.
   */
  #armDeadline(timeout: number, req: ParsedRequest, res: ServerResponse, context: HttpCallContext, traceId: string): void {
    const timer = setTimeout(() => {
      const error = ServiceErrors.deadlineExceeded(timeout);
      if (!res.headersSent) this.#fail(res, error, traceId);
      else endStream(res, isSse(req), this.#render(error).body);
      context.abort();
    }, timeout);
    res.once('close', () => clearTimeout(timer));
  }

  /** The user's transformError rendering, else the default: for an error reply and for a stream's error line alike. */
  #render(error: ServiceError): { status?: number; body?: unknown } {
    const custom = this.#deps.core.renderError(error, 'http') as { status?: number; body?: unknown } | undefined;
    return custom ?? transformError(error, 'http');
  }

  #fail(res: ServerResponse, error: ServiceError, traceId: string | undefined): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const out = this.#render(error);
    const json = JSON.stringify(out.body ?? {});
    res.statusCode = out.status ?? 500;
    if (traceId !== undefined) res.setHeader(this.#deps.core.traceHeader, traceId);
    if (error.code === 'RATE_LIMIT_EXCEEDED') {
      const wait = (error.details as { retryAfterMs?: number } | undefined)?.retryAfterMs ?? 1000;
      res.setHeader('Retry-After', String(Math.ceil(wait / 1000)));
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(json));
    if (this.#deps.core.dispatcher.draining) res.setHeader('Connection', 'close');
    res.end(json);
  }
}
