/**
 * `req.headers` stays Node's own header object (so every Express middleware
 * reads it as usual) and is also iterable as `[name, value]` pairs (spec 4.4).
 * The iterator is added as a non-enumerable symbol, so spreading, `Object.keys`
 * and `JSON.stringify` see exactly the headers.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Node's header object, also iterable as `[lower-case name, value]` pairs. */
export type IterableHeaders = IncomingHttpHeaders & Iterable<[string, string | string[]]>;

function iterateHeaders(this: IncomingHttpHeaders): Iterator<[string, string | string[]]> {
  return (Object.entries(this) as [string, string | string[]][])[Symbol.iterator]();
}

const ITERATOR = { value: iterateHeaders, enumerable: false, writable: true, configurable: true };

/** Makes `headers` iterable in place and returns it. */
export function makeHeadersIterable(headers: IncomingHttpHeaders): IterableHeaders {
  const h = headers as IterableHeaders;
  if (h[Symbol.iterator] === undefined) Object.defineProperty(h, Symbol.iterator, ITERATOR);
  return h;
}
