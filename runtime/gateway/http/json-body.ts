/**
 * Fast path for the common request body: identity-encoded UTF-8 JSON.
 * The general body reader (core/read-body.ts) stays in charge of everything
 * else (gzip/deflate bodies, other charsets): its content-type parsing and
 * charset decoding cost more per call than this path's single pass.
 */
import type { Buffer } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { ByteAccumulator } from '../../core/byte-accumulator';
import { jsonTextTooDeep, TOO_DEEP_MESSAGE } from '../../core/json-depth';
import { textMayHavePrototypeKeys } from '../../core/prototype-keys';
import { catalogueError, type ServiceError } from '../errors';

/** Parsed body, `undefined` for a request without one, or the error to answer with. */
export type BodyOutcome = { ok: true; body: unknown; suspect: boolean } | { ok: false; error: ServiceError };

/** True when a request with these headers (`req.headers`) can take the fast path. */
export function isPlainJsonBody(headers: IncomingHttpHeaders): boolean {
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = headers['content-type'];
  if (type === undefined || type === 'application/json') return true;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type);
  return charset === null || /^utf-?8$/i.test(charset[1] ?? '');
}

function tooLarge(limit: number): ServiceError {
  return catalogueError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`, { limit });
}


/**
 * Reads and parses the body (at most `limit` bytes); `headers` is `req.headers`.
 * Calls `done` exactly once, unless the client goes away first.
 */
export function readJsonBody(req: IncomingMessage, headers: IncomingHttpHeaders, limit: number, done: (outcome: BodyOutcome) => void): void {
  const lengthHeader = headers['content-length'];
  const chunked = headers['transfer-encoding'] !== undefined;
  if (lengthHeader === undefined && !chunked) {
    done({ ok: true, body: undefined, suspect: false });
    return;
  }
  const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
  if (declared !== undefined && declared > limit) {
    req.resume();
    done({ ok: false, error: tooLarge(limit) });
    return;
  }
  // A body in one chunk is kept as it came; smaller chunks are gathered in bounded blocks.
  const body = new ByteAccumulator();
  let received = 0;
  let finished = false;
  // The listeners stay on: `finished` mutes them, and removing them would cost more than req lives.
  // No 'error' listener: a request the client abandons ends neither in 'end' nor in an uncaught
  // error (IncomingMessage emits 'error' only to listeners), so `done` is simply never called.
  const finish = (outcome: BodyOutcome): void => {
    if (finished) return;
    finished = true;
    done(outcome);
  };
  const onData = (chunk: Buffer): void => {
    if (finished) return;
    received += chunk.length;
    if (received > limit) {
      req.resume();
      finish({ ok: false, error: tooLarge(limit) });
      return;
    }
    body.push(chunk);
  };
  const onEnd = (): void => {
    if (finished) return;
    if (declared !== undefined && received !== declared) {
      finish({ ok: false, error: catalogueError('BAD_REQUEST', 'Request body size did not match Content-Length') });
      return;
    }
    const bytes = body.take();
    if (bytes.length === 0) {
      finish({ ok: true, body: {}, suspect: false });
      return;
    }
    const text = bytes.toString('utf8');
    if (jsonTextTooDeep(text)) {
      finish({ ok: false, error: catalogueError('INVALID_ARGUMENT', TOO_DEEP_MESSAGE) });
      return;
    }
    try {
      finish({ ok: true, body: JSON.parse(text) as unknown, suspect: textMayHavePrototypeKeys(text) });
    } catch (e) {
      finish({ ok: false, error: catalogueError('INVALID_JSON', `Request body is not valid JSON: ${(e as Error).message}`) });
    }
  };
  req.on('data', onData);
  req.on('end', onEnd);
}
