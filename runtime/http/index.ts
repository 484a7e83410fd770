/**
 * The HTTP runtime: application, router, request/response, fetch handler and
 * native routes (spec 4.1–4.4). Re-exported by `fw`.
 */
export { FwApplication, createHttpApplication, type ApplicationGet, type CloseOptions, type FwServer } from './application';
export { Router, STANDARD_METHODS, type RouteMethod, type RouteChain, type ChainMethod } from './router';
export { FwRequest, type UploadedFile, type SessionData, type RouteParams, type RequestApplication } from './request';
export { FwResponse, type CookieOptions } from './response';
export type { SendFileOptions } from './send-file';
export type { FetchHandler, FetchHandlerOptions } from './fetch-handler';
export type { ErrorLogger } from './final-handler';
export type { IterableHeaders } from './iterable-headers';
export { PathPatternError } from './path-pattern';
export type { TrustFunction, TrustProxySetting } from './trust-proxy';
export type {
  NextFunction,
  RouteHandler,
  MiddlewareHandler,
  ErrorHandler,
  AnyRouteHandler,
  PathPattern,
  RouteInfo,
  RouterOptions,
  HttpServerOptions,
  NativeRoutes,
  NativeRouteHandler,
  NativeRequest,
} from './types';
export type { HostedWebSocketOptions, HostedGrpcOptions, HostedTcpOptions, HostedUdpOptions } from './gateway-hosting';
