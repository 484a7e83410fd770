/**
 * Turns the `cors`, `compression`, `rateLimit` and `maxRequestBodySize` keys of
 * `app.withOptions()` (spec 4.2) into the same middleware `fw/middleware`
 * exports, installed globally ahead of every route.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface GlobalMiddlewareOptions {
  cors?: { origin?: string | string[]; methods?: string[]; credentials?: boolean };
  compression?: { threshold?: number; level?: number };
  rateLimit?: { windowMs?: number; max?: number };
  maxRequestBodySize?: string;
}

/** Connect-style handler: what Express middleware is. */
export type ConnectHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** The middleware the options ask for, in the order they must run. */
export function globalMiddleware(_options: GlobalMiddlewareOptions): ConnectHandler[] {
  // Filled in by the middleware work (issue 3); until then the keys are accepted and stored.
  return [];
}
