/**
 * `urlencoded()`: body-parser's form parser with the 1 MiB default limit,
 * 1000 parameters at most, and prototype keys refused.
 */
import type { IncomingMessage } from 'node:http';
import { unescape } from 'node:querystring';
import bodyParser from 'body-parser';
import { createBodyReader, type BodyOptions } from './body-reader';
import { MiddlewareError } from './middleware-error';
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

// qs silently drops `__proto__` keys; fw refuses them like JSON ones, so look at the decoded text.
const FORBIDDEN_FORM_KEY = /__proto__|constructor\s*(?:\[\s*prototype\s*\]|\.\s*prototype)/;

/**
 * Parses `application/x-www-form-urlencoded` bodies into `req.body`.
 *
 * @example
 * import { urlencoded } from 'fw/middleware';
 * app.post('/login', urlencoded({ extended: false }), (req, res) => res.json({ user: req.body.username }));
 */
export function urlencoded(options: UrlencodedOptions = {}): ConnectHandler {
  const suspects = new WeakSet<IncomingMessage>();
  const verify = (req: IncomingMessage, _res: unknown, raw: Buffer): void => {
    if (FORBIDDEN_FORM_KEY.test(unescape(raw.toString('latin1')))) suspects.add(req);
  };
  const factory = (limit: number): ConnectHandler =>
    bodyParser.urlencoded({
      limit,
      extended: options.extended ?? false,
      parameterLimit: options.parameterLimit ?? 1000,
      depth: options.depth ?? 32,
      inflate: options.inflate ?? true,
      type: options.type ?? 'application/x-www-form-urlencoded',
      verify,
    } as bodyParser.OptionsUrlencoded) as ConnectHandler;
  return createBodyReader('form', options.limit, factory, (req) => {
    if (suspects.has(req)) {
      suspects.delete(req);
      throw new MiddlewareError(400, 'The form body contains a forbidden key (__proto__ or constructor.prototype)', 'entity.forbidden.key');
    }
    // Forms are small: scan what qs built as well.
    assertNoPrototypeKeys((req as ParsedRequest).body, 'form body');
  });
}
