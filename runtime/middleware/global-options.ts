/**
 * Turns the `cors`, `compression`, `rateLimit` and `maxRequestBodySize` keys of
 * `app.withOptions()` (spec 4.2) into the same middleware `fw/middleware`
 * exports, installed globally ahead of every route.
 */
import { bodyLimit } from './body-limit';
import { compression } from './compression';
import { cors } from './cors';
import { rateLimit } from './rate-limit';
import type { ConnectHandler } from './types';

export type { ConnectHandler } from './types';

/** The `withOptions` keys this module handles. */
export interface GlobalMiddlewareOptions {
  cors?: { origin?: string | string[]; methods?: string[]; credentials?: boolean };
  compression?: { threshold?: number; level?: number };
  rateLimit?: { windowMs?: number; max?: number };
  maxRequestBodySize?: string;
}

/**
 * The middleware the options ask for, in the order they must run: CORS first
 * (preflights and refusals still carry CORS headers), then compression (it
 * must wrap the response before anything writes), then the rate limit, then
 * the body-size guard.
 *
 * @example
 * for (const handler of globalMiddleware({ cors: { origin: '*' }, maxRequestBodySize: '10mb' })) app.use(handler);
 */
export function globalMiddleware(options: GlobalMiddlewareOptions): ConnectHandler[] {
  const handlers: ConnectHandler[] = [];
  if (options.cors !== undefined) handlers.push(cors(options.cors));
  if (options.compression !== undefined) handlers.push(compression(options.compression));
  if (options.rateLimit !== undefined) handlers.push(rateLimit(options.rateLimit));
  if (options.maxRequestBodySize !== undefined) handlers.push(bodyLimit(options.maxRequestBodySize));
  return handlers;
}
