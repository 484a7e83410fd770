/**
 * `req.headers` stays Node's own header object (built by Node's
 * `_addHeaderLine`, so every Express middleware reads it as usual) and is also
 * iterable as `[name, value]` pairs (spec 4.4). The pairs come from the
 * prototype of the object, so building it costs nothing extra per request and
 * spreading, `Object.keys` and `JSON.stringify` see exactly the headers.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Node's header object, also iterable as `[lower-case name, value]` pairs. */
export type IterableHeaders = IncomingHttpHeaders & Iterable<[string, string | string[]]>;

/** The prototype of every request's header object. */
class HeaderBag {
  [Symbol.iterator](): Iterator<[string, string | string[]]> {
    return (Object.entries(this) as [string, string | string[]][])[Symbol.iterator]();
  }
}

/** A fresh, empty, iterable header object. */
export function createHeaderBag(): IterableHeaders {
  return new HeaderBag() as unknown as IterableHeaders;
}

const ITERATOR = { value: HeaderBag.prototype[Symbol.iterator], enumerable: false, writable: true, configurable: true };

/** Makes a header object assigned from outside (`req.headers = {...}`) iterable too. */
export function makeHeadersIterable(headers: IncomingHttpHeaders): IterableHeaders {
  const h = headers as IterableHeaders;
  if (h[Symbol.iterator] === undefined) Object.defineProperty(h, Symbol.iterator, ITERATOR);
  return h;
}
