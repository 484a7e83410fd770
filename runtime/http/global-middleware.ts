/**
 * The hook through which `withOptions({cors, compression, rateLimit,
 * maxRequestBodySize})` becomes global middleware. runtime/http only defines
 * it: fw's entry (runtime/server.ts) provides the loader of fw/middleware's
 * `globalMiddleware`, so http never imports middleware (which builds on http)
 * and an app without these options never loads cors, compression or limits.
 */
import type { HttpServerOptions, MiddlewareHandler } from './types';

/** Turns the options into the handlers to install ahead of every route. */
export type GlobalMiddlewareFactory = (options: HttpServerOptions) => readonly MiddlewareHandler[];

let load: (() => GlobalMiddlewareFactory) | undefined;

/** Sets how the factory is loaded (called once by fw's entry). */
export function provideGlobalMiddleware(loader: () => GlobalMiddlewareFactory): void {
  load = loader;
}

/** The factory; throws when fw's entry was never loaded (an app built from runtime/http alone). */
export function globalMiddlewareFactory(): GlobalMiddlewareFactory {
  if (load === undefined) throw new Error('withOptions(): cors, compression, rateLimit and maxRequestBodySize need fw/middleware; import the app from fw');
  return load();
}
