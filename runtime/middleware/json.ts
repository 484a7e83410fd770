/**
 * `json()`: body-parser's JSON parser with fw's safe defaults — a 1 MiB
 * limit (or the app's `maxRequestBodySize`), `__proto__` /
 * `constructor.prototype` keys and nesting past 100 levels refused with 400.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import { TOO_DEEP_MESSAGE, valueTooDeep } from '../core/json-depth';
import { appBodyLimit, toBytes } from './body-limit';
import { createBodyReader, type BodyOptions } from './body-reader';
import { fastPathLength, readJson } from './json-fast-path';
import { MiddlewareError } from './middleware-error';
import { assertNoPrototypeKeys, mayHoldPrototypeKeys } from './prototype-guard';
import type { ConnectHandler, NextFunction } from './types';

/** Options of {@link json}. */
export interface JsonOptions extends BodyOptions {
  /** Accept only objects and arrays at the top level. Default true. */
  strict?: boolean;
}

interface ParsedRequest extends IncomingMessage {
  body?: unknown;
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
  // Requests whose raw text might spell a forbidden key; only those are scanned.
  const suspects = new WeakSet<IncomingMessage>();
  const verify = (req: IncomingMessage, _res: unknown, raw: Buffer, encoding: string): void => {
    if (encoding !== 'utf-8' || mayHoldPrototypeKeys(raw)) suspects.add(req);
  };
  const strict = options.strict ?? true;
  const factory = (limit: number): ConnectHandler =>
    bodyParser.json({
      limit,
      strict,
      inflate: options.inflate ?? true,
      type: options.type ?? 'application/json',
      verify,
    }) as ConnectHandler;
  const general = createBodyReader('JSON', options.limit, factory, (req) => {
    if (valueTooDeep((req as ParsedRequest).body)) throw new MiddlewareError(400, TOO_DEEP_MESSAGE, 'entity.parse.failed');
    if (!suspects.has(req)) return;
    suspects.delete(req);
    assertNoPrototypeKeys((req as ParsedRequest).body, 'JSON body');
  });
  // A custom `type` changes what counts as JSON: leave all of it to body-parser.
  if (options.type !== undefined) return general;
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
