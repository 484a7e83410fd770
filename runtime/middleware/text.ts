/**
 * `text()`: the body as a string, with the 1 MiB default limit.
 */
import { createBodyReader, type BodyOptions } from './body-reader';
import { readBody, typeMatcher } from '../core/read-body';
import type { ConnectHandler } from './types';

/** Options of {@link text}. */
export interface TextOptions extends BodyOptions {
  /** Charset when the request names none. Default `utf-8`. */
  defaultCharset?: string;
}

/**
 * Reads bodies of the given type (default `text/plain`) into `req.body` as a string.
 *
 * @example
 * import { text } from 'fw/middleware';
 * app.post('/notes', text({ type: 'text/plain' }), (req, res) => res.json({ length: req.body.length }));
 */
export function text(options: TextOptions = {}): ConnectHandler {
  const shouldParse = typeMatcher(options.type ?? 'text/plain');
  const inflate = options.inflate ?? true;
  const defaultCharset = options.defaultCharset || 'utf-8';
  const factory = (limit: number): ConnectHandler => (req, res, next) =>
    readBody(req, res, next, { limit, inflate, shouldParse, defaultCharset, verify: options.verify, parse: (body) => body });
  return createBodyReader('text', options.limit, factory);
}
