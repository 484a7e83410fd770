/**
 * WebSocket message formats: `json` (text frames, the spec's envelope),
 * `msgpack` (the same envelope, MessagePack-encoded binary frames) and
 * `binary` (the frame layout of docs/protocols.md inside binary messages).
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import { decode as msgpackDecode, encode as msgpackEncode } from '@msgpack/msgpack';
import { jsonTextTooDeep, MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from '../../core/json-depth';
import { hasPrototypeKeys, textMayHavePrototypeKeys } from '../../core/prototype-keys';
import { catalogueError, type ServiceError, ServiceErrors } from '../errors';
import { msgpackRefusal } from './msgpack-bounds';

/** `configureWebSocket({messageFormat})` values. */
export type WebSocketMessageFormat = 'json' | 'msgpack' | 'binary';

/** Every supported message format. */
export const MESSAGE_FORMATS: readonly WebSocketMessageFormat[] = ['json', 'msgpack', 'binary'];

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Decodes a json/msgpack message into an envelope object; throws ServiceError. */
export function decodeEnvelope(format: 'json' | 'msgpack', data: Buffer | ArrayBuffer | Buffer[]): Record<string, unknown> {
  const bytes = toBuffer(data);
  let value: unknown;
  let tooDeep = false;
  let suspect = true;
  try {
    if (format === 'json') {
      const text = bytes.toString('utf8');
      tooDeep = jsonTextTooDeep(text);
      if (!tooDeep) value = JSON.parse(text);
      suspect = textMayHavePrototypeKeys(text);
    } else {
      // Sizes and nesting are checked before the decoder allocates anything for them.
      const refusal = msgpackRefusal(bytes, MAX_JSON_DEPTH);
      if (refusal === 'malformed') throw new Error(refusal);
      tooDeep = refusal === 'too-deep';
      if (!tooDeep) value = msgpackDecode(bytes);
    }
  } catch {
    throw catalogueError('MALFORMED_MESSAGE', format === 'json' ? 'Message is not valid JSON' : 'Message is not valid MessagePack');
  }
  if (tooDeep) throw catalogueError('INVALID_ARGUMENT', TOO_DEEP_MESSAGE);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw ServiceErrors.badRequest('A message must be an object');
  // msgpack keys are not text we could pre-screen: every msgpack message is scanned.
  if (suspect && hasPrototypeKeys(value)) throw ServiceErrors.prototypeKey();
  return value as Record<string, unknown>;
}

/** Encodes an envelope reply for json/msgpack connections. */
export function encodeEnvelope(format: 'json' | 'msgpack', message: Record<string, unknown>): string | Uint8Array {
  if (format === 'json') return JSON.stringify(message);
  // msgpack cannot carry `undefined` faithfully; drop it like JSON does.
  return msgpackEncode(message, { ignoreUndefined: true });
}

export { toBuffer };
