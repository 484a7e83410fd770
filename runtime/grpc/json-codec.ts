/**
 * The JSON codec of inline services (DESIGN.md "gRPC runtime"): each gRPC
 * message is UTF-8 JSON, and calls carry `content-type: application/grpc+json`
 * by convention. A payload that is not a JSON value fails decoding, which
 * grpc-js answers with INTERNAL without calling the handler.
 */
import { jsonTextTooDeep, RejectedPayload, TOO_DEEP_MESSAGE } from '../core/json-depth';

/** Serializes one message; `undefined` becomes `{}` so a handler returning nothing still answers. */
export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value === undefined ? {} : value), 'utf8');
}

/**
 * Parses one message; an empty message is `{}`. Throws SyntaxError on malformed
 * JSON; nesting past 100 levels returns a RejectedPayload, which the handler
 * answers with INVALID_ARGUMENT (a thrown error would become INTERNAL).
 */
export function decodeJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  const text = bytes.toString('utf8');
  if (jsonTextTooDeep(text)) return new RejectedPayload(TOO_DEEP_MESSAGE);
  return JSON.parse(text, rejectPrototypeKeys);
}

// Same guard as the HTTP body parser: payloads never reach handlers with prototype-polluting keys.
function rejectPrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new SyntaxError('JSON key "__proto__" is not allowed');
  return value;
}
