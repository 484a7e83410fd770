/**
 * Reads Connect and gRPC-Web request bodies: the bare message of a Connect
 * unary call (from the body or a GET query), or the enveloped messages of
 * every other call, base64-decoded first for gRPC-Web text. Each message is
 * bounded by the transport's limit before it is buffered, decompressed
 * (gzip, or identity) with the same bound, and a body that breaks off or
 * carries a flag a request may not use is an INVALID_ARGUMENT error.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { ByteAccumulator } from '../../core/byte-accumulator';
import { catalogueError, type ServiceError } from '../errors';
import { FLAG_COMPRESSED, readEnvelopes } from '../wire/envelope';
import type { WebRpcRequest } from './protocol';

/** Compression a request body or message may use. */
export type RequestEncoding = 'identity' | 'gzip';

function invalid(message: string): ServiceError {
  return catalogueError('INVALID_ARGUMENT', message);
}

function tooLarge(limit: number): ServiceError {
  return catalogueError('RESOURCE_EXHAUSTED', `Message exceeds the ${limit}-byte limit`, { limit });
}

/** The encoding named by a Content-Encoding-like header; throws UNIMPLEMENTED for one fw does not speak. */
export function requestEncoding(value: string | undefined): RequestEncoding {
  if (value === undefined) return 'identity';
  const v = value.trim().toLowerCase();
  if (v === 'identity' || v === '') return 'identity';
  if (v === 'gzip') return 'gzip';
  throw catalogueError('UNIMPLEMENTED', `Unsupported compression "${v.slice(0, 32)}"; supported: gzip, identity`);
}

/** Undoes `encoding` with the output bounded by `limit`. Empty input is never decompressed (Connect spec). */
export function decompress(bytes: Buffer, encoding: RequestEncoding, limit: number): Buffer {
  if (encoding === 'identity' || bytes.length === 0) return bytes;
  try {
    return zlib.gunzipSync(bytes, { maxOutputLength: limit });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit);
    throw invalid('Message is not valid gzip data');
  }
}

/**
 * The whole body, at most `limit` bytes; `done` runs once (callback style:
 * this is the Connect unary hot path). A request the client abandons never
 * calls `done`; the reply's close handling ends the call.
 */
export function readWhole(req: IncomingMessage, limit: number, done: (error: ServiceError | undefined, body: Buffer) => void): void {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    done(tooLarge(limit), EMPTY);
    return;
  }
  const body = new ByteAccumulator();
  let received = 0;
  let settled = false;
  req.on('data', (chunk: Buffer) => {
    if (settled) return;
    received += chunk.length;
    if (received > limit) {
      settled = true;
      req.resume();
      done(tooLarge(limit), EMPTY);
      return;
    }
    body.push(chunk);
  });
  req.on('end', () => {
    if (settled) return;
    settled = true;
    done(undefined, body.take());
  });
}

const EMPTY = Buffer.alloc(0);

const BASE64 = /^[A-Za-z0-9+/=\r\n]*$/;

/**
 * gRPC-Web text bodies: base64, possibly as several padded runs back to back.
 * Each incoming chunk decodes into one Buffer, however many runs it holds, so
 * a body of `AA==` quads costs no more than its bytes.
 */
async function* base64Decoded(source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  let rest = '';
  for await (const chunk of source) {
    const text = rest + chunk.toString('latin1').replace(/[\r\n]/g, '');
    if (!BASE64.test(text)) throw invalid('gRPC-Web text body is not base64');
    const whole = text.length - (text.length % 4);
    rest = text.slice(whole);
    if (whole === 0) continue;
    const out = Buffer.allocUnsafe((whole / 4) * 3);
    let written = 0;
    let start = 0;
    for (let i = 0; i < whole; i += 4) {
      // A quad with padding ends one base64 run: decode each run on its own.
      if (text.charCodeAt(i + 3) === 61 /* = */) {
        written += out.write(text.slice(start, i + 4), written, 'base64');
        start = i + 4;
      }
    }
    if (start < whole) written += out.write(text.slice(start, whole), written, 'base64');
    yield out.subarray(0, written);
  }
  if (rest !== '') throw invalid('gRPC-Web text body ends inside a base64 quad');
}

/**
 * The request's messages, in order (enveloped protocols). Compressed
 * messages are decompressed with `encoding`; a compressed flag without an
 * encoding, or any other flag, is refused.
 */
export async function* requestMessages(req: IncomingMessage, wire: WebRpcRequest, encoding: RequestEncoding, limit: number): AsyncIterable<Buffer> {
  const source = wire.text ? base64Decoded(req) : (req as AsyncIterable<Buffer>);
  for await (const envelope of readEnvelopes(source, limit)) {
    if ((envelope.flags & ~FLAG_COMPRESSED) !== 0) throw invalid(`Request message has unexpected flags 0x${envelope.flags.toString(16)}`);
    if ((envelope.flags & FLAG_COMPRESSED) !== 0) {
      if (encoding === 'identity') throw invalid('Compressed request message without a compression header');
      yield decompress(envelope.data, encoding, limit);
    } else {
      yield envelope.data;
    }
  }
}

/** Exactly one message from an enveloped body (unary and server-streaming methods). */
export async function singleMessage(messages: AsyncIterable<Buffer>): Promise<Buffer> {
  let only: Buffer | undefined;
  for await (const m of messages) {
    if (only !== undefined) throw invalid('A unary request carries exactly one message');
    only = m;
  }
  if (only === undefined) throw invalid('Request carries no message');
  return only;
}

/** The message of a Connect GET: `message` (base64url when `base64=1`), optionally `compression`. */
export function getMessage(query: URLSearchParams, limit: number): Buffer {
  const raw = query.get('message') ?? '';
  const bytes = query.get('base64') === '1' ? Buffer.from(raw, 'base64url') : Buffer.from(raw, 'utf8');
  if (bytes.length > limit) throw tooLarge(limit);
  return decompress(bytes, requestEncoding(query.get('compression') ?? undefined), limit);
}
