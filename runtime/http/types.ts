/**
 * The public handler, route and option shapes of the HTTP runtime (spec 4.2,
 * 4.3). Kept apart from the classes so that middleware and the gateway can
 * import the shapes without pulling in the server.
 */
import type { HostedGrpcOptions, HostedTcpOptions, HostedUdpOptions, HostedWebSocketOptions } from './gateway-hosting';
import type { FwRequest } from './request';
import type { ProductionOptions } from '../workers/production-options';
import type { FwResponse } from './response';

/** `next()` continues; `next(error)` jumps to the error handlers; `next('route')` skips the rest of this route's handlers; `next('router')` leaves the current router. */
export type NextFunction = (error?: unknown) => void;

/** `(req, res, next?)`: a route handler; may return a promise, whose rejection reaches the error handlers. */
export type RouteHandler = (req: FwRequest, res: FwResponse, next: NextFunction) => void | Promise<unknown> | unknown;

/** `(req, res, next)`: middleware; same shape as a route handler, registered with `use`. */
export type MiddlewareHandler = (req: FwRequest, res: FwResponse, next: NextFunction) => void | Promise<unknown> | unknown;

/** `(error, req, res, next)`: recognised by its four declared parameters. */
export type ErrorHandler = (error: unknown, req: FwRequest, res: FwResponse, next: NextFunction) => void | Promise<unknown> | unknown;

/** Anything `use`/route methods accept as a handler. */
export type AnyRouteHandler = RouteHandler | MiddlewareHandler | ErrorHandler;

/** A path pattern: a string (spec 4.3 rules 1–4, 7) or a regular expression (rule 5). */
export type PathPattern = string | RegExp;

/** What `getRoutes()` reports for each registered route (spec 2.3). */
export interface RouteInfo {
  /** Upper-case method, or `ALL` for `app.all`. */
  method: string;
  /** The path as registered, prefixed by the mount path of its router. */
  path: string;
  /** The last handler of the route. */
  handler: AnyRouteHandler;
  /** The handlers that run before `handler`. */
  middleware: AnyRouteHandler[];
  /** Parameter names in order (`['userId', 'id']`, or `['0']` for regexp captures). */
  params: string[];
  /** An equivalent regular expression, for display and tooling. */
  regexp: RegExp;
}

/** Options of `new Router(options)` (spec 4.3). */
export interface RouterOptions {
  /** `/Users` and `/users` are different routes. Default false. */
  caseSensitive?: boolean;
  /** The router's handlers also see the params of the path it is mounted under. Default false. */
  mergeParams?: boolean;
  /** `/users/` and `/users` are different routes. Default false. */
  strict?: boolean;
}

/** `app.withOptions(options)` (spec 4.2). Timeouts are milliseconds. */
export interface HttpServerOptions extends ProductionOptions {
  /** Default `PORT`, else 3000. */
  port?: number;
  /** Default `HOST`, else every interface. */
  hostname?: string;
  development?: { hmr?: boolean; console?: boolean };
  /** Byte size with unit suffix, e.g. `'1mb'`; default `'1mb'`. */
  maxRequestBodySize?: string;
  /** HTTP persistent connections (and TCP keep-alive probes). Default true. */
  keepAlive?: boolean;
  keepAliveTimeout?: number;
  /** Default 60 000 ms. */
  headersTimeout?: number;
  /** Default 120 000 ms. */
  requestTimeout?: number;
  cors?: { origin?: string | string[]; methods?: string[]; credentials?: boolean };
  compression?: { threshold?: number; level?: number };
  rateLimit?: { windowMs?: number; max?: number };
  /** `gateway.getWebSocketConfig()`: upgrades on its `path` go to the gateway (docs/gateway.md). */
  websocket?: HostedWebSocketOptions;
  /** `gateway.getGRPCConfig()`: h2c connections on the app's port go to the gateway. */
  grpc?: HostedGrpcOptions;
  /** `gateway.getUDPConfig()`: UDP bound on the app's port number. */
  udp?: HostedUdpOptions;
  /** `gateway.getTCPConfig()`: TCP frame connections on the app's port go to the gateway. */
  tcp?: HostedTcpOptions;
}

/** A native route handler: standard `Request` (with `params`) in, `Response` out. */
export type NativeRouteHandler = (request: NativeRequest) => Response | Promise<Response>;

/** The standard `Request` a native route receives, with the matched path parameters. */
export type NativeRequest = Request & { params: Record<string, string> };

/**
 * `app.withRoutes(routes)`: path → handler, per-method handlers, or a static
 * value (a `Response`, HTML string, bytes, or JSON-able value).
 */
export type NativeRoutes = Record<string, NativeRouteHandler | Partial<Record<string, NativeRouteHandler>> | Response | string | Uint8Array | object>;
