/**
 * The one prototype-key guard of every transport and codec: parsed input
 * (JSON bodies, path and query data, WebSocket json/msgpack envelopes, UDP
 * and TCP frames, gRPC+JSON messages) must not carry `__proto__` or
 * `constructor.prototype` keys, the classic prototype-pollution payload once
 * application code merges them into other objects. secure-json-parse does the
 * scanning; callers turn a hit into their own protocol's 400-class error.
 */
import { scan } from 'secure-json-parse';

const SCAN_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

/** The message every transport answers with (wrapped in its own error type). */
export const PROTOTYPE_KEY_MESSAGE = 'Input must not contain __proto__ or constructor.prototype keys';

/**
 * True when JSON text could spell a forbidden key: every spelling contains
 * `proto`, `constructor` or a `\u` escape (which can hide any letter). Text
 * without them needs no scan after parsing.
 */
export function textMayHavePrototypeKeys(text: string): boolean {
  return text.includes('proto') || text.includes('constructor') || text.includes('\\u');
}

/** The same test on raw bytes (UTF-8 keeps every ASCII byte). */
export function bytesMayHavePrototypeKeys(bytes: Uint8Array): boolean {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return b.includes('proto') || b.includes('constructor') || b.includes('\\u');
}

/** True when `value` (parsed JSON, msgpack, form or query data) holds a forbidden key at any depth. */
export function hasPrototypeKeys(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  try {
    scan(value, SCAN_OPTIONS);
    return false;
  } catch {
    return true;
  }
}
