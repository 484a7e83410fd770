/**
 * `urlencoded()`: body-parser's form parser with the 1 MiB default limit,
 * 1000 parameters at most, and prototype keys refused.
 */
import type { IncomingMessage } from 'node:http';
import bodyParser from 'body-parser';
import { createBodyReader, type BodyOptions } from './body-reader';
import { assertNoPrototypeKeys } from './prototype-guard';
import type { ConnectHandler } from './types';

/** Options of {@link urlencoded}. */
export interface UrlencodedOptions extends BodyOptions {
  /** `true`: qs syntax with nested objects (`a[b]=1`); `false` (default): flat key/value pairs. */
  extended?: boolean;
  /** Most parameters accepted; more answers 413. Default 1000. */
  parameterLimit?: number;
  /** Deepest nesting for `extended` forms. Default 32. */
  depth?: number;
}

interface ParsedRequest extends IncomingMessage {
  body?: unknown;
}

/**
 * Parses `application/x-www-form-urlencoded` bodies into `req.body`.
 *
 * @example
 * import { urlencoded } from 'fw/middleware';
 * app.post('/login', urlencoded({ extended: false }), (req, res) => res.json({ user: req.body.username }));
 */
export function urlencoded(options: UrlencodedOptions = {}): ConnectHandler {
  const factory = (limit: number): ConnectHandler =>
    bodyParser.urlencoded({
      limit,
      extended: options.extended ?? false,
      parameterLimit: options.parameterLimit ?? 1000,
      depth: options.depth ?? 32,
      inflate: options.inflate ?? true,
      type: options.type ?? 'application/x-www-form-urlencoded',
    } as bodyParser.OptionsUrlencoded) as ConnectHandler;
  // Forms are small and their keys may be percent-encoded, so always scan.
  return createBodyReader('form', options.limit, factory, (req) => assertNoPrototypeKeys((req as ParsedRequest).body, 'form body'));
}
