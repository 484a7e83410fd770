/**
 * fw's gRPC metadata: the call-metadata model of core/call-metadata.ts
 * (text values as strings, `-bin` values as bytes) as a mutable multimap,
 * read from and written to HTTP/2 headers. It has the surface grpc-js's
 * server reads from the metadata it is handed (`clone`, `set`,
 * `toHttp2Headers`), so the fallback engine takes it as it is, and the
 * default engine needs no grpc-js at all.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import type { IncomingMetadata, MetadataValue } from '../core/call-metadata';

/** What fw reads from a call's request metadata: fw's own map, or grpc-js's Metadata on the fallback engine. */
export interface ReadableMetadata {
  /** Every value of `key` (lower case); empty when absent. */
  get(key: string): MetadataValue[];
  /** The first value of every key. */
  getMap(): Record<string, MetadataValue>;
  /** Every key and its values. */
  toJSON(): Record<string, MetadataValue[]>;
}

function asBuffer(value: MetadataValue): Buffer | string {
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value;
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** A metadata multimap with lower-case keys. */
export class MetadataMap implements ReadableMetadata, IncomingMetadata {
  readonly #entries = new Map<string, MetadataValue[]>();

  /** The request metadata of `headers`: pseudo-headers and `skip` left out, `-bin` values base64-decoded (a joined one split at commas). */
  static fromHttp2Headers(headers: IncomingHttpHeaders, skip?: readonly string[]): MetadataMap {
    const map = new MetadataMap();
    for (const key of Object.keys(headers)) {
      if (key.charCodeAt(0) === 58 /* ':' */ || skip?.includes(key) === true) continue;
      const raw = headers[key];
      if (raw === undefined) continue;
      if (Array.isArray(raw)) {
        for (const value of raw) map.add(key, key.endsWith('-bin') ? Buffer.from(value, 'base64') : value);
      } else if (key.endsWith('-bin') && !key.startsWith('grpc-')) {
        for (const part of raw.split(',')) map.add(key, Buffer.from(part.trim(), 'base64'));
      } else {
        map.add(key, key.endsWith('-bin') ? Buffer.from(raw, 'base64') : raw);
      }
    }
    return map;
  }

  /** Replaces every value of `key` with `value`. */
  set(key: string, value: MetadataValue): void {
    this.#entries.set(key.toLowerCase(), [asBuffer(value)]);
  }

  /** Appends `value` to the values of `key`. */
  add(key: string, value: MetadataValue): void {
    const name = key.toLowerCase();
    const list = this.#entries.get(name);
    if (list === undefined) this.#entries.set(name, [asBuffer(value)]);
    else list.push(asBuffer(value));
  }

  remove(key: string): void {
    this.#entries.delete(key.toLowerCase());
  }

  get(key: string): MetadataValue[] {
    return [...(this.#entries.get(key.toLowerCase()) ?? [])];
  }

  getMap(): Record<string, MetadataValue> {
    const out: Record<string, MetadataValue> = {};
    for (const [key, values] of this.#entries) if (values.length > 0) out[key] = values[0] as MetadataValue;
    return out;
  }

  toJSON(): Record<string, MetadataValue[]> {
    const out: Record<string, MetadataValue[]> = {};
    for (const [key, values] of this.#entries) out[key] = [...values];
    return out;
  }

  toRecord(): Record<string, MetadataValue[]> {
    return this.toJSON();
  }

  /** Adds every value of `other`. */
  merge(other: ReadableMetadata): void {
    const entries = other.toJSON();
    for (const key of Object.keys(entries)) for (const value of entries[key] ?? []) this.add(key, value);
  }

  clone(): MetadataMap {
    const copy = new MetadataMap();
    for (const [key, values] of this.#entries) copy.#entries.set(key, [...values]);
    return copy;
  }

  /** True when no key is set. */
  get empty(): boolean {
    return this.#entries.size === 0;
  }

  /** The HTTP/2 headers carrying this metadata: `-bin` values base64, repeated keys as arrays. */
  toHttp2Headers(): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = {};
    for (const [key, values] of this.#entries) {
      const text = values.map((v) => (typeof v === 'string' ? v : (asBuffer(v) as Buffer).toString('base64')));
      out[key] = text.length === 1 ? text[0] : text;
    }
    return out;
  }
}

/** Metadata on its way out (response headers, trailers): fw's map, or grpc-js's Metadata from code written for grpc-js. */
export interface OutgoingMetadata {
  toHttp2Headers(): OutgoingHttpHeaders;
}

/** True when `value` can be written as response metadata. */
export function isOutgoingMetadata(value: unknown): value is OutgoingMetadata {
  return typeof value === 'object' && value !== null && typeof (value as OutgoingMetadata).toHttp2Headers === 'function';
}

/** True when `value` can be read as metadata (fw's map or grpc-js's Metadata). */
export function isReadableMetadata(value: unknown): value is ReadableMetadata {
  return typeof value === 'object' && value !== null && typeof (value as ReadableMetadata).get === 'function' && typeof (value as ReadableMetadata).toJSON === 'function';
}
