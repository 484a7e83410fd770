/**
 * JSON text of reply envelopes, exactly what `JSON.stringify` gives for
 * `{id, method, data, traceId}` (frames) or `{data}` (HTTP), with one native
 * stringify call for `data` instead of one for the whole envelope. On
 * Node 20 every level JSON.stringify walks costs about a thousand
 * instructions; building the envelope's few fixed keys as text is cheaper
 * (bench:gateway, callgrind). Anything whose text could depend on the
 * envelope — a `toJSON(key)`, a value JSON.stringify drops — goes through
 * the plain JSON.stringify of the whole envelope.
 */
import type { EnvelopeMetadata } from './envelope-metadata';

/** Characters JSON.stringify escapes in a string (including lone surrogates). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(s)` for a string; plain strings skip the native call. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/**
 * JSON text of `value` as a property value, or undefined when that text is
 * not independent of the property (toJSON receives the key) or the property
 * would be left out (undefined, functions, symbols) or the value is a BigInt.
 */
function valueJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
      return JSON.stringify(value);
    default:
      return undefined;
  }
}

/** `JSON.stringify({data})`. */
export function dataEnvelopeJson(data: unknown): string {
  const json = valueJson(data);
  return json === undefined ? JSON.stringify({ data }) : `{"data":${json}}`;
}

/**
 * `JSON.stringify({id, method, data, traceId})`; `method` undefined leaves the
 * key out, as JSON.stringify does (stream items).
 */
export function envelopeJson(id: unknown, method: string | undefined, data: unknown, traceId: string | undefined, meta?: EnvelopeMetadata): string {
  if (meta !== undefined) return JSON.stringify({ id, method, data, traceId, ...meta });
  const json = valueJson(data);
  const plain =
    json !== undefined &&
    (id === undefined || typeof id === 'string' || typeof id === 'number') &&
    (method === undefined || typeof method === 'string') &&
    (traceId === undefined || typeof traceId === 'string');
  if (!plain) {
    return JSON.stringify({ id, method, data, traceId });
  }
  let out = id === undefined ? '{' : `{"id":${valueJson(id) as string},`;
  if (method !== undefined) out += `"method":${jsonString(method)},`;
  out += `"data":${json as string}`;
  if (traceId !== undefined) out += `,"traceId":${jsonString(traceId)}`;
  return `${out}}`;
}
