/**
 * `raw()`: the body as a Buffer, with the 1 MiB default limit.
 */
import { createBodyReader, type BodyOptions } from './body-reader';
import { readBody, typeMatcher } from '../core/read-body';
import type { ConnectHandler } from './types';

/** Options of {@link raw}. */
export type RawOptions = BodyOptions;

/**
 * Reads bodies of the given type (default `application/octet-stream`) into `req.body` as a Buffer.
 *
 * @example
 * import { raw } from 'fw/middleware';
 * app.post('/blobs', raw({ type: 'application/octet-stream' }), (req, res) => res.json({ size: req.body.length }));
 */
export function raw(options: RawOptions = {}): ConnectHandler {
  const shouldParse = typeMatcher(options.type ?? 'application/octet-stream');
  const inflate = options.inflate ?? true;
  const factory = (limit: number): ConnectHandler => (req, res, next) =>
    readBody(req, res, next, { limit, inflate, shouldParse, defaultCharset: null, verify: options.verify, parse: (body) => body });
  return createBodyReader('binary', options.limit, factory);
}
