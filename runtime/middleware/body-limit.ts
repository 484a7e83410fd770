/**
 * Request-body size limits: the 1 MiB default, the app-wide
 * `maxRequestBodySize` installed by `withOptions`, and the guard that refuses
 * a declared Content-Length over it before a byte is read.
 */
import type { IncomingMessage } from 'node:http';
import bytes from 'bytes';
import { MiddlewareError } from './middleware-error';
import type { ConnectHandler } from './types';

/** Default request body limit: 1 MiB (DESIGN.md "Defaults that keep users safe"). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** A size as bytes or a string with a unit (`'10mb'`, `'512kb'`). */
export type ByteSize = number | string;

// Set by the app-wide guard for each request it passes, read by body parsers
// that were given no limit of their own. A WeakMap keeps FwRequest's shape fixed.
const appLimits = new WeakMap<IncomingMessage, number>();

/**
 * Converts `'10mb'`, `'1.5kb'` or a byte count to bytes.
 * Throws a TypeError at configuration time for anything else.
 */
export function toBytes(size: ByteSize, optionName: string): number {
  const parsed = typeof size === 'number' ? size : bytes.parse(size);
  if (parsed === null || !Number.isFinite(parsed) || parsed < 0) {
    throw new TypeError(`${optionName} must be a byte count or a size such as '10mb', got ${JSON.stringify(size)}`);
  }
  return Math.floor(parsed);
}

/** Formats a byte count for error messages: `1048576` → `'1MB'`. */
export function formatBytes(count: number): string {
  return bytes.format(count) ?? `${count}B`;
}

/** The limit a parser without an explicit one applies to this request. */
export function appBodyLimit(req: IncomingMessage): number {
  return appLimits.get(req) ?? DEFAULT_BODY_LIMIT;
}

/**
 * App-wide body limit (`withOptions({ maxRequestBodySize })`): refuses a
 * declared Content-Length over the limit with 413, and makes the limit the
 * default of every `fw/middleware` body parser for this request (a chunked
 * body is counted by the parser as it streams in).
 *
 * @example
 * app.use(bodyLimit('10mb'));
 */
export function bodyLimit(size: ByteSize): ConnectHandler {
  const limit = toBytes(size, 'maxRequestBodySize');
  const label = formatBytes(limit);
  return function fwBodyLimit(req, _res, next) {
    const declared = req.headers['content-length'];
    if (declared !== undefined) {
      const length = Number(declared);
      if (!Number.isSafeInteger(length) || length < 0) {
        next(new MiddlewareError(400, 'Content-Length header is not a valid byte count', 'request.size.invalid'));
        return;
      }
      if (length > limit) {
        // Stop reading: nothing of this body will ever be used.
        next(new MiddlewareError(413, `Request body is larger than the ${label} limit`, 'entity.too.large'));
        return;
      }
    }
    appLimits.set(req, limit);
    next();
  };
}
