/**
 * Reads one request body — for fw/middleware's `json()`, `urlencoded()`,
 * `raw()` and `text()`, and the gateway's HTTP/JSON bodies that miss its fast
 * path — the way body-parser 2 does — same checks in the same order, same statuses
 * and error `type`s — without body-parser's dependency tree (raw-body,
 * http-errors, on-finished, debug, qs, …): a service installs about forty
 * packages fewer. Bytes are gathered in bounded blocks (ByteAccumulator), so
 * a body sent one byte at a time costs what its bytes cost. Charsets are
 * decoded with iconv-lite and media types matched with type-is, the two
 * small packages body-parser itself uses for that.
 *
 * Order of the checks (body-parser's): body already read → skipped; no body
 * (neither Transfer-Encoding nor a numeric Content-Length) → skipped; media
 * type not matched → skipped; charset refused by the parser (415
 * `charset.unsupported`); Content-Encoding refused or unknown (415
 * `encoding.unsupported`); declared length over the limit (413
 * `entity.too.large`); charset unknown (415); then the bytes: over the limit
 * (413), aborted (400 `request.aborted`), length mismatch (400
 * `request.size.invalid`), a broken compressed stream (400); `verify` (403
 * `entity.verify.failed` unless it names a type); the parse (400
 * `entity.parse.failed` unless it names a type). A refused body is read to
 * its end before `next(error)`, so the connection can carry the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { parse as parseContentType } from 'content-type';
import iconv from 'iconv-lite';
import typeis from 'type-is';
import { ByteAccumulator } from './byte-accumulator';


/** An error of the body reader, shaped as body-parser's (status, `type`, and what it was about). */
export class BodyReadError extends Error {
  override name = 'BodyReadError';
  constructor(
    readonly status: number,
    message: string,
    readonly type: string | undefined,
    extra: { limit?: number; charset?: string; encoding?: string; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    if (extra.limit !== undefined) this.limit = extra.limit;
    if (extra.charset !== undefined) this.charset = extra.charset;
    if (extra.encoding !== undefined) this.encoding = extra.encoding;
  }
  get statusCode(): number {
    return this.status;
  }
  limit?: number;
  charset?: string;
  encoding?: string;
}

/** `verify(req, res, buf, encoding)`: runs on the raw bytes before parsing; throwing refuses the body with 403. */
export type VerifyBody = (req: IncomingMessage, res: ServerResponse, buf: Buffer, encoding: string | null) => void;

/** What one parser asks of the reader. */
export interface ReadBodySettings {
  limit: number;
  inflate: boolean;
  shouldParse: (req: IncomingMessage) => boolean;
  /** `null`: the body stays bytes (raw); else the charset used when the request names none. */
  defaultCharset: string | null;
  /** Charsets the parser accepts (JSON: `utf-*`; forms: utf-8 and iso-8859-1). */
  isValidCharset?: (charset: string) => boolean;
  verify?: VerifyBody | undefined;
  /** Turns the decoded body (a Buffer for raw) into `req.body`; throwing refuses it with 400. */
  parse: (body: string | Buffer, charset: string | null) => unknown;
}

/** Continues the chain; an argument is the refusal. */
type NextFunction = (error?: unknown) => void;

interface BodyHolder extends IncomingMessage {
  body?: unknown;
}

/** body-parser's `type` option: type-is patterns, or a predicate. */
export function typeMatcher(type: string | readonly string[] | ((req: IncomingMessage) => boolean)): (req: IncomingMessage) => boolean {
  if (typeof type === 'function') return type;
  const patterns = typeof type === 'string' ? [type] : [...type];
  return (req) => Boolean(typeis(req, patterns));
}

/** on-finished's `isFinished` for a request: its body is gone (read, upgraded, or its socket closed). */
function bodyGone(req: IncomingMessage): boolean {
  const socket = req.socket as IncomingMessage['socket'] | null | undefined;
  return Boolean((req as { upgrade?: boolean }).upgrade || !socket || !socket.readable || (req.complete && !req.readable));
}

/** type-is's `hasBody`. */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length'] ?? Number.NaN));
}

function charsetOf(req: IncomingMessage): string | undefined {
  const header = req.headers['content-type'];
  if (header === undefined || header === '') return undefined;
  return parseContentType(header).parameters['charset']?.toLowerCase();
}

function unsupportedCharset(charset: string): BodyReadError {
  return new BodyReadError(415, `unsupported charset "${charset.toUpperCase()}"`, 'charset.unsupported', { charset: charset.toLowerCase() });
}

const hasZstd = 'createZstdDecompress' in zlib;

function decompressor(encoding: string): Transform {
  switch (encoding) {
    case 'deflate':
      return zlib.createInflate();
    case 'gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      // Node 22.15+ and 23.8+; the types of Node 20 do not know it.
      if (hasZstd) return (zlib as unknown as { createZstdDecompress(): Transform }).createZstdDecompress();
  }
  throw new BodyReadError(415, `unsupported content encoding "${encoding}"`, 'encoding.unsupported', { encoding });
}

/** Reads the rest of `req` and drops it, then calls `done`. */
function drain(req: IncomingMessage, done: () => void): void {
  if (bodyGone(req)) {
    done();
    return;
  }
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    req.off('end', once);
    req.off('close', once);
    done();
  };
  req.on('end', once);
  req.on('close', once);
  req.resume();
}

/** Declared Content-Length as raw-body reads it (`parseInt`), or null. */
function declaredLength(req: IncomingMessage): number | null {
  const header = req.headers['content-length'];
  if (header === undefined || Number.isNaN(Number(header))) return null;
  return Number.parseInt(header, 10);
}

/** Reads and parses `req`'s body into `req.body` per `settings`, then calls `next` (with the refusal, if any). */
export function readBody(req: IncomingMessage, res: ServerResponse, next: NextFunction, settings: ReadBodySettings): void {
  const holder = req as BodyHolder;
  if (bodyGone(req)) {
    next();
    return;
  }
  if (!('body' in req)) holder.body = undefined;
  if (!hasBody(req) || !settings.shouldParse(req)) {
    next();
    return;
  }

  let charset: string | null = null;
  let stream: Readable = req;
  let inflater: Transform | undefined;
  let length: number | null = null;
  try {
    if (settings.defaultCharset !== null) {
      charset = charsetOf(req) ?? settings.defaultCharset;
      if (settings.isValidCharset !== undefined && !settings.isValidCharset(charset)) throw unsupportedCharset(charset);
      if (settings.verify !== undefined && !iconv.encodingExists(charset)) throw unsupportedCharset(charset);
    }
    const contentEncoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (!settings.inflate && contentEncoding !== 'identity') {
      throw new BodyReadError(415, 'content encoding unsupported', 'encoding.unsupported', { encoding: contentEncoding });
    }
    if (contentEncoding === 'identity') {
      length = declaredLength(req);
    } else {
      inflater = decompressor(contentEncoding);
      stream = inflater;
      req.pipe(inflater);
    }
  } catch (error) {
    next(error);
    return;
  }

  const fail = (error: unknown): void => {
    if (inflater !== undefined) {
      req.unpipe();
      inflater.destroy();
    }
    drain(req, () => next(error));
  };

  // raw-body's checks before reading a byte.
  if (length !== null && length > settings.limit) {
    process.nextTick(fail, new BodyReadError(413, 'request entity too large', 'entity.too.large', { limit: settings.limit }));
    return;
  }
  if (charset !== null && settings.verify === undefined && !iconv.encodingExists(charset)) {
    process.nextTick(fail, unsupportedCharset(charset));
    return;
  }

  const body = new ByteAccumulator();
  let received = 0;
  let settled = false;

  function cleanup(): void {
    settled = true;
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('error', onError);
    req.off('aborted', onAborted);
    req.off('close', onClose);
  }
  function onData(chunk: Buffer): void {
    if (settled) return;
    received += chunk.length;
    if (received > settings.limit) {
      cleanup();
      stream.pause();
      fail(new BodyReadError(413, 'request entity too large', 'entity.too.large', { limit: settings.limit }));
      return;
    }
    body.push(chunk);
  }
  function onError(error: Error): void {
    if (settled) return;
    cleanup();
    fail(new BodyReadError(400, error.message, undefined, { cause: error }));
  }
  function onAborted(): void {
    if (settled) return;
    cleanup();
    fail(new BodyReadError(400, 'request aborted', 'request.aborted'));
  }
  function onClose(): void {
    if (settled || req.complete) return;
    onAborted();
  }
  function onEnd(): void {
    if (settled) return;
    cleanup();
    if (length !== null && received !== length) {
      fail(new BodyReadError(400, 'request size did not match content length', 'request.size.invalid'));
      return;
    }
    if (inflater !== undefined) {
      req.unpipe(inflater);
      inflater.on('error', () => {});
      inflater.destroy();
      req.resume();
    }
    finish(body.take());
  }
  function finish(raw: Buffer): void {
    if (settings.verify !== undefined) {
      try {
        settings.verify(req, res, raw, charset);
      } catch (error) {
        const named = (error as { type?: unknown } | null)?.type;
        next(new BodyReadError(403, (error as Error)?.message ?? String(error), typeof named === 'string' ? named : 'entity.verify.failed', { cause: error }));
        return;
      }
    }
    try {
      const decoded = charset === null ? raw : iconv.decode(raw, charset);
      holder.body = settings.parse(decoded, charset);
    } catch (error) {
      if (error instanceof BodyReadError) {
        next(error);
        return;
      }
      const named = (error as { type?: unknown } | null)?.type;
      const status = (error as { status?: unknown } | null)?.status;
      next(new BodyReadError(typeof status === 'number' ? status : 400, (error as Error)?.message ?? String(error), typeof named === 'string' ? named : 'entity.parse.failed', { cause: error }));
      return;
    }
    next();
  }

  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('error', onError);
  req.on('aborted', onAborted);
  req.on('close', onClose);
}
