/**
 * The JSON codec of inline services (DESIGN.md "gRPC runtime"): each gRPC
 * message is UTF-8 JSON, and calls carry `content-type: application/grpc+json`
 * by convention. A payload that is not a JSON value (or carries prototype
 * keys, or nests past 100 levels) is answered INVALID_ARGUMENT without
 * calling the handler, as the gateway answers it.
 */
import { jsonTextTooDeep, RejectedPayload, TOO_DEEP_MESSAGE } from '../core/json-depth';
import { hasPrototypeKeys, PROTOTYPE_KEY_MESSAGE, textMayHavePrototypeKeys } from '../core/prototype-keys';

/** Serializes one message; `undefined` becomes `{}` so a handler returning nothing still answers. */
export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value === undefined ? {} : value), 'utf8');
}

/**
 * Parses one message; an empty message is `{}`. Malformed JSON, prototype
 * keys and nesting past 100 levels return a RejectedPayload, which the
 * handler answers with INVALID_ARGUMENT (a thrown error would become INTERNAL).
 */
export function decodeJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  const text = bytes.toString('utf8');
  if (jsonTextTooDeep(text)) return new RejectedPayload(TOO_DEEP_MESSAGE);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new RejectedPayload('Message is not valid JSON');
  }
  // The runtime's one guard: payloads never reach handlers with prototype-polluting keys.
  if (textMayHavePrototypeKeys(text) && hasPrototypeKeys(value)) return new RejectedPayload(PROTOTYPE_KEY_MESSAGE);
  return value;
}

/** decodeJson for what a client receives: a refused payload throws instead of reaching the caller as a value. */
export function decodeJsonOrThrow(bytes: Buffer): unknown {
  const value = decodeJson(bytes);
  if (value instanceof RejectedPayload) throw new SyntaxError(value.message);
  return value;
}
