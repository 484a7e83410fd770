/**
 * The fast path of `json()`: a plain `application/json` (UTF-8) body with a
 * Content-Length within the limit and no Content-Encoding is read and parsed
 * directly. Everything else — chunked or compressed bodies, other charsets
 * or media types, bodies over the limit, a stream something else already
 * read — goes to body-parser, which stays the reference behaviour.
 *
 * Why it exists: in the HTTP benchmark body-parser's per-request machinery
 * (type-is, content-type, raw-body, iconv, on-finished) cost about as much
 * CPU as the rest of the request; the JSON-body scenario is measured against
 * Fastify's own parser. docs/middleware.md records the measurement.
 */
import { ByteAccumulator } from '../core/byte-accumulator';
import { jsonTextTooDeep, TOO_DEEP_MESSAGE } from '../core/json-depth';
import type { IncomingMessage } from 'node:http';
import { MiddlewareError } from './middleware-error';
import { textMayHavePrototypeKeys } from '../core/prototype-keys';
import { assertNoPrototypeKeys } from './prototype-guard';

/** Called once with a refusal, or with the parsed value. */
export type JsonDone = (error: MiddlewareError | undefined, value?: unknown) => void;

const DIGITS = /^\d{1,15}$/;

/** The Content-Length to read on the fast path, or -1 when body-parser must handle the request. */
export function fastPathLength(req: IncomingMessage, limit: number): number {
  const headers = req.headers;
  const type = headers['content-type'];
  if (type === undefined) return -1;
  if (type !== 'application/json') {
    const lower = type.toLowerCase();
    if (lower !== 'application/json' && lower !== 'application/json; charset=utf-8' && lower !== 'application/json;charset=utf-8') return -1;
  }
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return -1;
  const declared = headers['content-length'];
  if (declared === undefined || !DIGITS.test(declared)) return -1;
  const length = Number(declared);
  if (length === 0 || length > limit) return -1;
  if (req.complete || req.readableEnded || req.readableFlowing !== null) return -1;
  return length;
}

function parse(raw: Buffer, strict: boolean): unknown {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
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

/** Reads exactly `length` bytes of `req` and parses them. */
export function readJson(req: IncomingMessage, length: number, strict: boolean, done: JsonDone): void {
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
    body.push(chunk);
  }
  function onEnd(): void {
    if (settled) return;
    cleanup();
    if (received !== length) {
      done(new MiddlewareError(400, 'Request body length does not match Content-Length', 'request.size.invalid'));
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
