/**
 * `text()`: body-parser's text parser — the body as a string — with the 1 MiB default limit.
 */
import bodyParser from 'body-parser';
import { createBodyReader, type BodyOptions } from './body-reader';
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
  const factory = (limit: number): ConnectHandler =>
    bodyParser.text({
      limit,
      inflate: options.inflate ?? true,
      type: options.type ?? 'text/plain',
      defaultCharset: options.defaultCharset ?? 'utf-8',
    }) as ConnectHandler;
  return createBodyReader('text', options.limit, factory);
}
