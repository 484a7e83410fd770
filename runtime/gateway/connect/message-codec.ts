/**
 * Messages of one method in either codec. Binary protobuf uses the
 * generated descriptor's codecs (so only generated services speak `proto`;
 * inline services are JSON-only and answer 415 to `proto`). JSON goes
 * through the method's proto3 JSON mapping (`fromJSON`/`toJSON`), exactly
 * as on the HTTP/JSON transport, and refuses `__proto__` and
 * `constructor.prototype` keys. Every decode failure is an INVALID_ARGUMENT
 * ServiceError naming the message type; nothing is coerced.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import sjson from 'secure-json-parse';
import { catalogueError, ServiceError } from '../errors';
import type { ResolvedMethod } from '../../rpc/resolved-method';
import type { MessageCodecName } from './protocol';

const JSON_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

function invalid(what: string, reason: string): ServiceError {
  return catalogueError('INVALID_ARGUMENT', `Request is not a valid ${what} message: ${reason}`);
}

/** True when `method` can carry `codec` (binary needs a generated descriptor). */
export function supportsCodec(method: ResolvedMethod, codec: MessageCodecName): boolean {
  return codec === 'json' || method.descriptor !== undefined;
}

/** Wire bytes → the handler's request. */
export function decodeRequest(method: ResolvedMethod, codec: MessageCodecName, bytes: Buffer): unknown {
  const md = method.descriptor;
  const what = md?.requestType ?? 'JSON';
  if (codec === 'proto') {
    if (md === undefined) throw invalid(what, 'binary protobuf needs a generated service');
    try {
      return md.requestCodec.decode(bytes);
    } catch (e) {
      throw invalid(what, (e as Error).message);
    }
  }
  let json: unknown;
  try {
    const text = bytes.toString('utf8');
    // Only text that could spell a prototype key (also escaped) pays for the secure parse.
    json = text.includes('proto') || text.includes('constructor') || text.includes('\\u') ? sjson.parse(text, null, JSON_OPTIONS) : JSON.parse(text);
  } catch (e) {
    throw invalid(what, (e as Error).message);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw invalid(what, 'a message is a JSON object');
  if (method.fromJSON === undefined) return json;
  try {
    return method.fromJSON(json);
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    throw invalid(what, (e as Error).message);
  }
}

/**
 * The handler's reply → wire bytes, or JSON text (a string lets node:http
 * send headers and body in one write instead of a writev). Throws when the
 * value cannot be encoded.
 */
export function encodeResponse(method: ResolvedMethod, codec: MessageCodecName, value: unknown): Buffer | string {
  if (codec === 'proto') {
    const bytes = (method.descriptor as NonNullable<ResolvedMethod['descriptor']>).responseCodec.encode(value);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return JSON.stringify(method.toJSON === undefined ? (value ?? {}) : method.toJSON(value)) ?? '{}';
}
