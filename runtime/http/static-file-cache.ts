/**
 * Small-file cache for `staticFiles()`: the plain case — GET/HEAD of a small
 * regular file, no Range and no conditional headers — is answered from
 * memory after one `fs.stat` that proves the file unchanged (same inode,
 * size, mtime and ctime). `send` would stat, open, read twice and close the
 * file and run a stream per request; this costs a stat and one write.
 * Every other case (misses, directories, dotfiles, Range, If-*, changed
 * files, files above the size cap) stays with serve-static/send, and a
 * miss fills the cache in the background for the next request.
 *
 * The headers are the ones `send` writes, computed with the very modules
 * `send` uses (etag, mime-types, ms — resolved from send's own location), and
 * like `send` they never override a header an earlier middleware has set.
 */
import { stat, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open as openFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { extname, join, sep } from 'node:path';

/** The modules send computes its headers with; resolved next to send so the versions match. */
interface SendHelpers {
  etag(entity: Stats, options?: { weak?: boolean }): string;
  contentType(extension: string): string | false;
  ms(value: string): number | undefined;
}

let helpers: SendHelpers | undefined;

function sendHelpers(): SendHelpers {
  if (helpers === undefined) {
    const fromSend = createRequire(require.resolve('send'));
    const mime = fromSend('mime-types') as { contentType(extension: string): string | false };
    helpers = {
      etag: fromSend('etag') as SendHelpers['etag'],
      contentType: (extension) => mime.contentType(extension),
      ms: fromSend('ms') as SendHelpers['ms'],
    };
  }
  return helpers;
}

/** Largest file kept in memory, and the cache's bounds. */
const MAX_FILE_BYTES = 64 * 1024;
const MAX_ENTRIES = 512;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;
/** send caps max-age at one year. */
const MAX_MAXAGE_MS = 365 * 24 * 60 * 60 * 1000;

/** Request headers that need send's full logic (ranges, preconditions, revalidation). */
const SLOW_HEADERS = ['range', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'if-range'] as const;

interface Entry {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly body: Buffer;
  readonly etag: string;
  readonly lastModified: string;
  readonly contentType: string;
}

/** What shapes the headers; the defaults of serve-static (etag, Last-Modified, Accept-Ranges, Cache-Control all on). */
export interface StaticFileCacheOptions {
  maxAge: number | string;
  immutable: boolean;
}

/** Memory cache of small files under one root; see the module comment. */
export class StaticFileCache {
  readonly #root: string;
  readonly #cacheControl: string;
  readonly #entries = new Map<string, Entry>();
  readonly #filling = new Set<string>();
  #bytes = 0;

  constructor(root: string, options: StaticFileCacheOptions) {
    this.#root = root;
    // The same conversion send applies to maxAge.
    const raw = typeof options.maxAge === 'string' ? sendHelpers().ms(options.maxAge) : Number(options.maxAge);
    const maxAge = raw === undefined || Number.isNaN(raw) ? 0 : Math.min(Math.max(0, raw), MAX_MAXAGE_MS);
    this.#cacheControl = `public, max-age=${Math.floor(maxAge / 1000)}${options.immutable ? ', immutable' : ''}`;
  }

  /**
   * Serves `pathname` (mount-relative, already checked against traversal)
   * from memory when it can; otherwise calls `fallback` (send's path).
   */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string, fallback: () => void): void {
    const file = this.#eligible(req, res, pathname);
    if (file === undefined) {
      fallback();
      return;
    }
    stat(file, (error, stats) => {
      if (error !== null || !stats.isFile() || res.headersSent || res.destroyed) {
        fallback();
        return;
      }
      const entry = this.#entries.get(file);
      if (entry === undefined || entry.ino !== stats.ino || entry.size !== stats.size || entry.mtimeMs !== stats.mtimeMs || entry.ctimeMs !== stats.ctimeMs) {
        if (stats.size <= MAX_FILE_BYTES) this.#fill(file);
        fallback();
        return;
      }
      this.#write(req, res, entry);
    });
  }

  /** The absolute file for a request that may take the memory path, else undefined. */
  #eligible(req: IncomingMessage, res: ServerResponse, pathname: string): string | undefined {
    if (res.headersSent) return undefined;
    const headers = req.headers;
    for (const name of SLOW_HEADERS) if (headers[name] !== undefined) return undefined;
    if (pathname.length < 2 || pathname.charCodeAt(pathname.length - 1) === 47 /* / */) return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return undefined;
    }
    // Dotfiles, empty segments and anything unusual keep send's handling.
    if (decoded.includes('/.') || decoded.includes('//') || decoded.includes('\\') || decoded.includes('\0')) return undefined;
    const file = join(this.#root, decoded);
    return file.startsWith(this.#root + sep) ? file : undefined;
  }

  #write(req: IncomingMessage, res: ServerResponse, entry: Entry): void {
    // Like send: headers an earlier middleware set win.
    if (res.getHeader('Accept-Ranges') === undefined) res.setHeader('Accept-Ranges', 'bytes');
    if (res.getHeader('Cache-Control') === undefined) res.setHeader('Cache-Control', this.#cacheControl);
    if (res.getHeader('Last-Modified') === undefined) res.setHeader('Last-Modified', entry.lastModified);
    if (res.getHeader('ETag') === undefined) res.setHeader('ETag', entry.etag);
    if (res.getHeader('Content-Type') === undefined) res.setHeader('Content-Type', entry.contentType);
    res.setHeader('Content-Length', entry.size);
    res.statusCode = 200;
    if (req.method === 'HEAD') res.end();
    else res.end(entry.body);
  }

  /** Reads a file and its stat through one descriptor, then keeps it if it did not change meanwhile. */
  #fill(file: string): void {
    if (this.#filling.has(file) || this.#filling.size >= 16) return;
    this.#filling.add(file);
    let handle: FileHandle | undefined;
    const done = (): void => {
      this.#filling.delete(file);
      void handle?.close().catch(() => undefined);
    };
    openFile(file, 'r')
      .then(async (h) => {
        handle = h;
        const before = await h.stat();
        if (!before.isFile() || before.size > MAX_FILE_BYTES) return;
        const body = await h.readFile();
        const after = await h.stat();
        if (body.length !== before.size || after.mtimeMs !== before.mtimeMs || after.size !== before.size || after.ctimeMs !== before.ctimeMs) return;
        this.#store(file, before, body);
      })
      .then(done, done);
  }

  #store(file: string, stats: Stats, body: Buffer): void {
    const previous = this.#entries.get(file);
    if (previous !== undefined) {
      this.#entries.delete(file);
      this.#bytes -= previous.size;
    }
    // Oldest first out: Map iteration order is insertion order.
    for (const [key, old] of this.#entries) {
      if (this.#entries.size < MAX_ENTRIES && this.#bytes + body.length <= MAX_TOTAL_BYTES) break;
      this.#entries.delete(key);
      this.#bytes -= old.size;
    }
    const h = sendHelpers();
    this.#entries.set(file, {
      ino: stats.ino,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
      body,
      etag: h.etag(stats),
      lastModified: stats.mtime.toUTCString(),
      contentType: h.contentType(extname(file)) || 'application/octet-stream',
    });
    this.#bytes += body.length;
  }
}
