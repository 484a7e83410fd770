/**
 * CORS settings that cannot be safe, refused when they are configured (by
 * `cors()` from fw/middleware and by the gateway's `configureHTTP`) rather
 * than shipped: `credentials: true` with a wildcard origin would let every
 * site read credentialed responses — browsers refuse `*` with credentials,
 * so users "fix" it by reflecting any origin, which is the same hole.
 */

/** The origin/credentials pair of a CORS configuration (`origin` defaults to `'*'`). */
export interface CorsPolicyInput {
  origin?: unknown;
  credentials?: unknown;
}

/** Throws a TypeError naming the problem when `options` cannot be safe. */
export function assertSafeCors(options: CorsPolicyInput | undefined, where: string): void {
  if (options === undefined || options === null || options.credentials !== true) return;
  const origin = options.origin ?? '*';
  if (origin === '*' || (Array.isArray(origin) && origin.includes('*'))) {
    throw new TypeError(`${where}: origin '*' with credentials: true lets any site make credentialed requests; list the allowed origins (a string, RegExp or array)`);
  }
}
