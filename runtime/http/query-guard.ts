/**
 * Refuses query strings whose keys spell `__proto__` or
 * `constructor[prototype]` (safe as keys of our null-prototype `req.query`,
 * but the classic pollution payload once an application merges the query into
 * its own objects, or an Express middleware re-parses it with `qs`).
 */
import type { FwRequest } from './request';

/** A 400 the final handler answers as `{error}`. */
export class ForbiddenQueryKeyError extends Error {
  readonly statusCode = 400;
  constructor(key: string) {
    super(`The query string contains a forbidden key: ${key}`);
    this.name = 'ForbiddenQueryKeyError';
  }
}

// Any spelling of the two keys, percent-encoded or not, leaves one of these in the raw text.
function mayHoldForbiddenKey(raw: string, from: number): boolean {
  const rest = raw.slice(from).toLowerCase();
  return rest.includes('proto') || rest.includes('constructor') || rest.includes('%');
}

function isForbidden(key: string): boolean {
  return key.includes('__proto__') || (key.includes('constructor') && key.includes('prototype'));
}

/** The forbidden key of the request's query string, if it has one. Cheap for ordinary URLs. */
export function forbiddenQueryKey(req: FwRequest): string | undefined {
  const raw = req.rawUrl;
  const q = raw.indexOf('?');
  if (q === -1 || !mayHoldForbiddenKey(raw, q + 1)) return undefined;
  for (const key of Object.keys(req.query)) {
    if (isForbidden(key)) return key;
  }
  return undefined;
}
