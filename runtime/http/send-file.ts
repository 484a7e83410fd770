/**
 * `res.sendFile` / `res.download` on top of the `send` package, which gives
 * content types, Range, conditional GET (ETag, Last-Modified) and traversal
 * protection. The promise resolves once the response is fully written and
 * rejects with an error carrying `statusCode` when the file cannot be read.
 * `send` is an optional peer, loaded on the first call: a service that sends
 * no files does not install it.
 */
import { isAbsolute } from 'node:path';
import type sendModule from 'send';
import { loadOptionalPeer } from '../core/optional-peer';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Options of `res.sendFile()`: those of the `send` package. */
export interface SendFileOptions {
  /** Resolve relative paths against this directory (which also bounds them). */
  root?: string;
  /** Cache-Control max-age in ms or a duration string like `'1d'`. */
  maxAge?: number | string;
  /** `'ignore'` (default, 404), `'allow'` or `'deny'` (403) for dot-files. */
  dotfiles?: 'allow' | 'deny' | 'ignore';
  lastModified?: boolean;
  etag?: boolean;
  acceptRanges?: boolean;
  cacheControl?: boolean;
  immutable?: boolean;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

type HttpError = Error & { statusCode?: number; status?: number; headers?: Record<string, string> };

function failure(message: string, statusCode: number, cause?: unknown): HttpError {
  const error: HttpError = new Error(message, cause === undefined ? undefined : { cause });
  error.statusCode = statusCode;
  return error;
}

/** Streams `path` to `res`; see the module comment. */
export function sendFile(req: IncomingMessage, res: ServerResponse, path: string, options: SendFileOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (typeof path !== 'string' || path.length === 0) {
      reject(new TypeError('sendFile: path must be a non-empty string'));
      return;
    }
    if (options.root === undefined && !isAbsolute(path)) {
      reject(new TypeError('sendFile: path must be absolute or options.root must be set'));
      return;
    }
    let send: typeof sendModule;
    try {
      send = loadOptionalPeer<typeof sendModule>('send', 'res.sendFile() / res.download()');
    } catch (error) {
      reject(error);
      return;
    }
    let settled = false;
    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      res.removeListener('finish', onFinish);
      res.removeListener('close', onClose);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onFinish = (): void => settle();
    const onClose = (): void => settle(res.writableFinished ? undefined : failure('Request aborted before the file was sent', 499));
    const { headers, ...sendOptions } = options;
    const stream = send(req, encodeURI(path), sendOptions);
    stream.on('error', (error: HttpError) => {
      const status = error.statusCode ?? error.status ?? 500;
      const wrapped = failure(status === 404 ? `File not found: ${path}` : error.message, status, error);
      if (error.headers !== undefined) wrapped.headers = error.headers;
      settle(wrapped);
    });
    stream.on('directory', () => settle(failure(`Is a directory: ${path}`, 404)));
    if (headers !== undefined) {
      stream.on('headers', (out: ServerResponse) => {
        for (const name of Object.keys(headers)) out.setHeader(name, headers[name]!);
      });
    }
    res.on('finish', onFinish);
    res.on('close', onClose);
    stream.pipe(res);
  });
}
