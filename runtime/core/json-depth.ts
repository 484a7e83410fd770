/**
 * The nesting limit for decoded JSON (and MessagePack) payloads: 100 levels,
 * protobuf's own recursion limit. Deeper input is refused at the edge so that
 * nothing deep reaches a handler, a validator, a codec or a reply encoder
 * (a 5,000-deep object once came back as a 500). One small module, so every
 * transport and decoder shares the same rule and the same message.
 */

/** Objects and arrays nested deeper than this are refused. */
export const MAX_JSON_DEPTH = 100;

/** The message every transport refuses a too-deep payload with (400 / INVALID_ARGUMENT). */
export const TOO_DEEP_MESSAGE = `JSON nesting exceeds ${MAX_JSON_DEPTH} levels`;

/**
 * True when JSON text opens more than `max` objects/arrays at once. A
 * single pass over the text that skips strings, run before `JSON.parse`; the
 * text need not be valid JSON (the parser reports that afterwards).
 */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  // Nesting past `max` needs more than `max` characters.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}

/** True when a decoded value nests objects/arrays more than `max` deep (for decoders without text, such as MessagePack). */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  return deeper(value, max, 1);
}

function deeper(value: unknown, max: number, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > max) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeper(item, max, depth + 1)) return true;
    return false;
  }
  if (ArrayBuffer.isView(value)) return false;
  for (const key in value) if (deeper((value as Record<string, unknown>)[key], max, depth + 1)) return true;
  return false;
}

/**
 * What a decoder without an error channel of its own returns for a refused
 * payload (grpc-js turns every deserializer exception into INTERNAL): the
 * handler wrapper sees this instance and answers INVALID_ARGUMENT instead.
 */
export class RejectedPayload {
  readonly message: string;

  constructor(message: string) {
    this.message = message;
  }
}
