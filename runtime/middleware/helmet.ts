/**
 * `helmet()`: security response headers from the `helmet` package, with its
 * defaults (Content-Security-Policy, Strict-Transport-Security,
 * X-Content-Type-Options, X-Frame-Options, Referrer-Policy, …).
 */
import helmetPackage, { type HelmetOptions } from 'helmet';
import type { ConnectHandler } from './types';

export type { HelmetOptions };

/**
 * Sets security headers on every response. Takes no arguments in the spec;
 * helmet's own options may be passed to tune single headers.
 *
 * @example
 * import { helmet } from 'fw/middleware';
 * app.use(helmet());
 */
export function helmet(options?: Readonly<HelmetOptions>): ConnectHandler {
  return helmetPackage(options) as ConnectHandler;
}
