/**
 * The fast path of `json()`: a plain `application/json` (UTF-8) body with a
 * Content-Length within the limit, or a chunked one, and no Content-Encoding
 * is read and parsed directly, its bytes gathered in bounded blocks however
 * small its chunks. Everything else — compressed bodies, other charsets
 * or media types, bodies over the limit, a stream something else already
 * read — goes to the general reader (core/read-body.ts), which keeps
 * body-parser's behaviour.
 *
 * Why it exists: in the HTTP benchmark body-parser's per-request machinery
 * (type-is, content-type, raw-body, iconv, on-finished) cost about as much
 * CPU as the rest of the request; the JSON-body scenario is measured against
 * Fastify's own parser. docs/middleware.md records the measurement.
 */
import { ByteAccumulator } from '../core/byte-accumulator';
import { jsonTextTooDeep, TOO_DEEP_MESSAGE } from '../core/json-depth';
import type { IncomingMessage } from 'node:http';
import { formatBytes } from './body-limit';
import { MiddlewareError } from './middleware-error';
import { textMayHavePrototypeKeys } from '../core/prototype-keys';
import { assertNoPrototypeKeys } from './prototype-guard';

/** Called once with a refusal, or with the parsed value. */
export type JsonDone = (error: MiddlewareError | undefined, value?: unknown) => void;

const DIGITS = /^\d{1,15}$/;

/** What {@link fastPathLength} returns for a chunked body (read up to the limit). */
export const CHUNKED = -2;

/**
 * The Content-Length to read on the fast path, {@link CHUNKED} for a chunked
 * body, or -1 when body-parser must handle the request. Chunked bodies take
 * the fast path for their memory too: raw-body keeps every chunk as it came,
 * and a 1 MiB body in one-byte chunks cost about 400 MB there.
 */
export function fastPathLength(req: IncomingMessage, limit: number): number {
  const headers = req.headers;
  const type = headers['content-type'];
  if (type === undefined) return -1;
  if (type !== 'application/json') {
    const lower = type.toLowerCase();
    if (lower !== 'application/json' && lower !== 'application/json; charset=utf-8' && lower !== 'application/json;charset=utf-8') return -1;
  }
  if (headers['content-encoding'] !== undefined) return -1;
  const declared = headers['content-length'];
  const transfer = headers['transfer-encoding'];
  if (transfer !== undefined) {
    if (declared !== undefined || transfer.toLowerCase() !== 'chunked') return -1;
    return req.complete || req.readableEnded || req.readableFlowing !== null ? -1 : CHUNKED;
  }
  if (declared === undefined || !DIGITS.test(declared)) return -1;
  const length = Number(declared);
  if (length === 0 || length > limit) return -1;
  if (req.complete || req.readableEnded || req.readableFlowing !== null) return -1;
  return length;
}

function parse(raw: Buffer, strict: boolean): unknown {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // Nothing but a byte-order mark: empty, and an empty body is `{}` (body-parser's rule).
  if (text.length === 0) return {};
  if (strict) {
    const first = text.trimStart().charAt(0);
    if (first !== '{' && first !== '[') {
      throw new MiddlewareError(400, `Malformed JSON body: expected an object or array, got ${first === '' ? 'nothing' : JSON.stringify(first)}`, 'entity.parse.failed');
    }
  }
  if (jsonTextTooDeep(text)) throw new MiddlewareError(400, TOO_DEEP_MESSAGE, 'entity.parse.failed');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MiddlewareError(400, `Malformed JSON body: ${(error as Error).message}`, 'entity.parse.failed', { cause: error });
  }
  if (textMayHavePrototypeKeys(text)) assertNoPrototypeKeys(value, 'JSON body');
  return value;
}

/** Reads exactly `length` bytes of `req` (a chunked body: at most `limit`) and parses them. */
export function readJson(req: IncomingMessage, length: number, limit: number, strict: boolean, done: JsonDone): void {
  let received = 0;
  const body = new ByteAccumulator();
  let settled = false;

  function cleanup(): void {
    settled = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('close', onClose);
  }
  function onData(chunk: Buffer): void {
    received += chunk.length;
    if (received > limit) {
      cleanup();
      // The rest is read and dropped, so the connection can carry the 413.
      req.resume();
      done(new MiddlewareError(413, `Request body is larger than the ${formatBytes(limit)} limit`, 'entity.too.large'));
      return;
    }
    body.push(chunk);
  }
  function onEnd(): void {
    if (settled) return;
    cleanup();
    if (length !== CHUNKED && received !== length) {
      done(new MiddlewareError(400, 'Request body length does not match Content-Length', 'request.size.invalid'));
      return;
    }
    if (received === 0) {
      // An empty chunked body parses as body-parser parses it: an empty object.
      done(undefined, {});
      return;
    }
    let value: unknown;
    try {
      value = parse(body.take(), strict);
    } catch (error) {
      done(error as MiddlewareError);
      return;
    }
    done(undefined, value);
  }
  function onError(error: Error): void {
    if (settled) return;
    cleanup();
    done(new MiddlewareError(400, `Could not read the JSON body: ${error.message}`, 'request.aborted', { cause: error }));
  }
  function onClose(): void {
    if (settled || req.complete) return;
    cleanup();
    done(new MiddlewareError(400, 'Request aborted before the body was complete', 'request.aborted'));
  }

  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('close', onClose);
}
