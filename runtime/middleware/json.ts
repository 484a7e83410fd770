/**
 * `json()`: JSON bodies as body-parser's JSON parser reads them, with fw's
 * safe defaults — a 1 MiB limit (or the app's `maxRequestBodySize`),
 * `__proto__` / `constructor.prototype` keys and nesting past 100 levels
 * refused with 400.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonTextTooDeep, TOO_DEEP_MESSAGE } from '../core/json-depth';
import { textMayHavePrototypeKeys } from '../core/prototype-keys';
import { appBodyLimit, toBytes } from './body-limit';
import { createBodyReader, type BodyOptions } from './body-reader';
import { fastPathLength, readJson } from './json-fast-path';
import { MiddlewareError } from './middleware-error';
import { assertNoPrototypeKeys } from './prototype-guard';
import { readBody, typeMatcher } from '../core/read-body';
import type { ConnectHandler, NextFunction } from './types';

/** Options of {@link json}. */
export interface JsonOptions extends BodyOptions {
  /** Accept only objects and arrays at the top level. Default true. */
  strict?: boolean;
}

interface ParsedRequest extends IncomingMessage {
  body?: unknown;
}

// RFC 7159 section 8.1, as body-parser checks it.
const isUnicode = (charset: string): boolean => charset.slice(0, 4) === 'utf-';

const LEADING_WHITESPACE = /^[\x20\x09\x0a\x0d]*/;

/** body-parser's JSON parse (empty body → `{}`, `strict` → object or array only) plus fw's depth and prototype-key guards. */
function parseJsonText(text: string, strict: boolean): unknown {
  if (text.length === 0) return {};
  if (strict) {
    const first = text.charAt(LEADING_WHITESPACE.exec(text)![0].length);
    if (first !== '{' && first !== '[') {
      throw new MiddlewareError(400, `Malformed JSON body: expected an object or array, got ${first === '' ? 'nothing' : JSON.stringify(first)}`, 'entity.parse.failed');
    }
  }
  if (jsonTextTooDeep(text)) throw new MiddlewareError(400, TOO_DEEP_MESSAGE, 'entity.parse.failed');
  const value: unknown = JSON.parse(text);
  if (textMayHavePrototypeKeys(text)) assertNoPrototypeKeys(value, 'JSON body');
  return value;
}

/**
 * Parses `application/json` bodies into `req.body`.
 * Malformed JSON answers 400, a body over the limit 413 (also when chunked),
 * a forbidden prototype key 400 — each as `{ error }` through the app's error handling.
 *
 * @example
 * import { server } from 'fw';
 * import { json } from 'fw/middleware';
 * const app = server.http();
 * app.use(json());
 * app.post('/users', (req, res) => res.status(201).json(req.body));
 */
export function json(options: JsonOptions = {}): ConnectHandler {
  const strict = options.strict ?? true;
  const parse = (body: string | Buffer): unknown => parseJsonText(String(body), strict);
  const shouldParse = typeMatcher(options.type ?? 'application/json');
  const inflate = options.inflate ?? true;
  const factory = (limit: number): ConnectHandler => (req, res, next) =>
    readBody(req, res, next, { limit, inflate, shouldParse, defaultCharset: 'utf-8', isValidCharset: isUnicode, verify: options.verify, parse });
  const general = createBodyReader('JSON', options.limit, factory);
  // A custom `type` changes what counts as JSON, and `verify` wants the bytes: both take the general reader.
  if (options.type !== undefined || options.verify !== undefined) return general;
  const explicitLimit = options.limit === undefined ? undefined : toBytes(options.limit, 'limit');

  return function fwJson(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    const limit = explicitLimit ?? appBodyLimit(req);
    const length = fastPathLength(req, limit);
    if (length === -1) {
      general(req, res, next);
      return;
    }
    readJson(req, length, limit, strict, (error, value) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      (req as ParsedRequest).body = value;
      next();
    });
  };
}
