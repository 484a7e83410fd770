/**
 * `staticFiles({root, maxAge, index, extensions})`: serve-static (over send)
 * with fw's guards in front: `..` segments, encoded separators (`%2f`,
 * `%5c`), backslashes and NUL bytes are refused with 403/400 before the file
 * system is touched; dotfiles are ignored (404); nothing outside `root` is
 * ever served. Small unchanged files are answered from memory
 * (runtime/http/static-file-cache.ts) with the headers send would write. Mount it under a path with `app.use('/assets', staticFiles(...))`.
 * serve-static is an optional peer (a service serving no files installs
 * neither it nor send), loaded when `staticFiles()` is called.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import type serveStaticModule from 'serve-static';
import { loadOptionalPeer } from '../core/optional-peer';
import { StaticFileCache } from '../http/static-file-cache';
import { MiddlewareError } from './middleware-error';
import type { ConnectHandler, NextFunction } from './types';

/** Options of {@link staticFiles} (spec 4.5). */
export interface StaticFilesOptions {
  /** Directory to serve. */
  root: string;
  /** Cache-Control max-age: ms, or a duration string (`'1d'`, `'2h'`). Default 0. */
  maxAge?: number | string;
  /** File names tried for a directory request, in order; `false` disables. Default `['index.html']`. */
  index?: readonly string[] | false;
  /** Extensions tried when the path has none, e.g. `['html', 'htm']`. Default none. */
  extensions?: readonly string[];
  /** Dotfiles: `'ignore'` (404, default), `'deny'` (403) or `'allow'`. */
  dotfiles?: 'ignore' | 'deny' | 'allow';
  /** Send `Cache-Control: immutable` with maxAge. Default false. */
  immutable?: boolean;
  /** Pass misses (and non-GET/HEAD) to the next handler. Default true; false answers 404 here. */
  fallthrough?: boolean;
  /** Redirect a directory without trailing slash to one with it. Default true. */
  redirect?: boolean;
}

// Separators a client has no reason to encode: a decoded `%2f` would turn
// one path segment into two after routing has looked at it.
const ENCODED_SEPARATOR = /%(?:2f|5c)/i;
const UP_SEGMENT = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

// In fw route handlers req.url is a full URL (spec 4.4); in use() middleware, as in Node and Express, a path: accept both.
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i;

function pathnameOf(url: string): string {
  const origin = ORIGIN.exec(url);
  const path = origin === null ? url : url.slice(origin[0].length);
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
}

/** Why a request path must not reach the file system, or undefined when it may. */
function refusal(pathname: string): MiddlewareError | undefined {
  if (pathname.includes('\\') || ENCODED_SEPARATOR.test(pathname)) {
    return new MiddlewareError(403, 'Path contains an encoded or backslash separator', 'path.forbidden');
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return new MiddlewareError(400, 'Path is not valid percent-encoding', 'path.malformed');
  }
  if (decoded.includes('\0')) return new MiddlewareError(400, 'Path contains a NUL byte', 'path.malformed');
  if (UP_SEGMENT.test(decoded)) return new MiddlewareError(403, 'Path leaves the static root', 'path.forbidden');
  return undefined;
}

/**
 * Serves files from `root`.
 *
 * @example
 * import { staticFiles } from 'fw/middleware';
 * app.use('/assets', staticFiles({ root: './public', maxAge: '1d', index: ['index.html'], extensions: ['html'] }));
 */
export function staticFiles(options: StaticFilesOptions): ConnectHandler {
  if (typeof options?.root !== 'string' || options.root.length === 0) throw new TypeError('staticFiles() needs a root directory');
  const index = options.index;
  const root = resolve(options.root);
  const serveStatic = loadOptionalPeer<typeof serveStaticModule>('serve-static', 'staticFiles() from fw/middleware');
  const serve = serveStatic(root, {
    maxAge: options.maxAge ?? 0,
    index: index === false ? false : index === undefined ? ['index.html'] : [...index],
    extensions: options.extensions === undefined ? false : options.extensions.map((ext) => ext.replace(/^\./, '')),
    dotfiles: options.dotfiles ?? 'ignore',
    immutable: options.immutable ?? false,
    fallthrough: options.fallthrough ?? true,
    redirect: options.redirect ?? true,
  }) as unknown as ConnectHandler;
  // Small unchanged files come from memory; everything else goes through serve-static.
  const cache = new StaticFileCache(root, { maxAge: options.maxAge ?? 0, immutable: options.immutable ?? false });

  return function fwStaticFiles(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    const pathname = pathnameOf(req.url ?? '/');
    const refused = refusal(pathname);
    if (refused !== undefined) {
      next(refused);
      return;
    }
    cache.serve(req, res, pathname, () => serve(req, res, next));
  };
}
