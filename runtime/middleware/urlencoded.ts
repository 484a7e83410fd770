/**
 * `urlencoded()`: form bodies as body-parser 2 reads them, with the 1 MiB
 * default limit, 1000 parameters at most, and prototype keys refused. Flat
 * forms (the default) are parsed by fw (flat-form.ts); `extended: true`
 * forms need qs, an optional peer loaded when such a parser is created.
 */
import type { IncomingMessage } from 'node:http';
import { unescape } from 'node:querystring';
import { loadOptionalPeer } from '../core/optional-peer';
import { createBodyReader, type BodyOptions } from './body-reader';
import { parseFlatForm } from './flat-form';
import { MiddlewareError } from './middleware-error';
import { assertNoPrototypeKeys } from './prototype-guard';
import { BodyReadError, readBody, typeMatcher } from '../core/read-body';
import type { ConnectHandler } from './types';

/** Options of {@link urlencoded}. */
export interface UrlencodedOptions extends BodyOptions {
  /** `true`: qs syntax with nested objects (`a[b]=1`), needs the `qs` package; `false` (default): flat key/value pairs. */
  extended?: boolean;
  /** Most parameters accepted; more answers 413. Default 1000. */
  parameterLimit?: number;
  /** Deepest nesting for `extended` forms. Default 32. */
  depth?: number;
}

/** The part of qs's API `extended` forms use. */
interface QueryStringParser {
  parse(text: string, options: Record<string, unknown>): unknown;
}

// qs silently drops `__proto__` keys; fw refuses them like JSON ones, so look at the decoded text.
const FORBIDDEN_FORM_KEY = /__proto__|constructor\s*(?:\[\s*prototype\s*\]|\.\s*prototype)/;

const isFormCharset = (charset: string): boolean => charset === 'utf-8' || charset === 'iso-8859-1';

/** Pairs in `body`, or undefined past `limit` (body-parser's count: one more than the `&`s). */
function parameterCount(body: string, limit: number): number | undefined {
  let count = 0;
  let index = -1;
  do {
    count++;
    if (count > limit) return undefined;
    index = body.indexOf('&', index + 1);
  } while (index !== -1);
  return count;
}

/**
 * Parses `application/x-www-form-urlencoded` bodies into `req.body`.
 *
 * @example
 * import { urlencoded } from 'fw/middleware';
 * app.post('/login', urlencoded({ extended: false }), (req, res) => res.json({ user: req.body.username }));
 */
export function urlencoded(options: UrlencodedOptions = {}): ConnectHandler {
  const extended = options.extended ?? false;
  const parameterLimitOption = options.parameterLimit ?? 1000;
  if (Number.isNaN(parameterLimitOption) || parameterLimitOption < 1) throw new TypeError('option parameterLimit must be a positive number');
  const parameterLimit = Number.isFinite(parameterLimitOption) ? parameterLimitOption | 0 : parameterLimitOption;
  const depth = extended ? (options.depth ?? 32) : 0;
  if (Number.isNaN(depth) || depth < 0) throw new TypeError('option depth must be a zero or a positive number');
  const qs = extended ? loadOptionalPeer<QueryStringParser>('qs', 'urlencoded({ extended: true }) from fw/middleware') : undefined;

  const parse = (body: string | Buffer, charset: string | null): unknown => {
    const text = String(body);
    if (text.length === 0) return {};
    const count = parameterCount(text, parameterLimit);
    if (count === undefined) throw new BodyReadError(413, 'too many parameters', 'parameters.too.many');
    const form = qs === undefined ? parseFlatForm(text, charset, count) : parseExtended(qs, text, charset, count);
    if (FORBIDDEN_FORM_KEY.test(unescape(text))) {
      throw new MiddlewareError(400, 'The form body contains a forbidden key (__proto__ or constructor.prototype)', 'entity.forbidden.key');
    }
    // Forms are small: scan what was built as well.
    assertNoPrototypeKeys(form, 'form body');
    return form;
  };
  const parseExtended = (parser: QueryStringParser, text: string, charset: string | null, count: number): unknown => {
    try {
      return parser.parse(text, {
        allowPrototypes: true,
        arrayLimit: Math.max(100, count),
        depth,
        charset: charset ?? 'utf-8',
        parameterLimit,
        strictDepth: true,
      });
    } catch (error) {
      if (error instanceof RangeError) throw new BodyReadError(400, 'The input exceeded the depth', 'querystring.parse.rangeError');
      throw error;
    }
  };

  const shouldParse = typeMatcher(options.type ?? 'application/x-www-form-urlencoded');
  const inflate = options.inflate ?? true;
  const factory = (limit: number): ConnectHandler => (req: IncomingMessage, res, next) =>
    readBody(req, res, next, { limit, inflate, shouldParse, defaultCharset: 'utf-8', isValidCharset: isFormCharset, verify: options.verify, parse });
  return createBodyReader('form', options.limit, factory);
}
