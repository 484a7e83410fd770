/**
 * `raw()`: body-parser's raw parser — the body as a Buffer — with the 1 MiB default limit.
 */
import bodyParser from 'body-parser';
import { createBodyReader, type BodyOptions } from './body-reader';
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
  const factory = (limit: number): ConnectHandler =>
    bodyParser.raw({ limit, inflate: options.inflate ?? true, type: options.type ?? 'application/octet-stream' }) as ConnectHandler;
  return createBodyReader('binary', options.limit, factory);
}
