/**
 * `compression(options)`: the `compression` package (gzip, deflate, br by
 * Accept-Encoding) with the spec's `threshold` and `level`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type compressionPackage from 'compression';
import { loadOptionalPeer } from '../core/optional-peer';
import type { ConnectHandler } from './types';

/** Options of {@link compression} (spec 4.2, 8.6). */
export interface CompressionOptions {
  /** Only bodies larger than this many bytes are compressed. Default 1024. */
  threshold?: number | string;
  /** zlib level, 1 (fast) to 9 (small); default zlib's 6. */
  level?: number;
  /** Decide per response; default: compressible content types. */
  filter?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

/**
 * Compresses responses above `threshold` bytes when the client accepts it.
 *
 * @example
 * import { compression } from 'fw/middleware';
 * app.use(compression({ threshold: 1024, level: 6 }));
 */
export function compression(options: CompressionOptions = {}): ConnectHandler {
  const level = options.level;
  if (level !== undefined && (!Number.isInteger(level) || level < -1 || level > 9)) {
    throw new TypeError(`compression level must be an integer from 1 to 9, got ${String(level)}`);
  }
  // compression is an optional peer of fw: installed only by services that compress HTTP responses.
  const compressionModule = loadOptionalPeer<typeof compressionPackage>('compression', 'compression() from fw/middleware');
  return compressionModule({
    threshold: options.threshold ?? 1024,
    level,
    filter: options.filter as compressionPackage.CompressionFilter | undefined,
  }) as unknown as ConnectHandler;
}
