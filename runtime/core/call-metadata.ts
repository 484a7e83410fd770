/**
 * The metadata model of one call, shared by gRPC and every gateway transport:
 * request metadata in, response headers (sent once) and trailers out, and
 * per-call response compression. gRPC maps it onto HTTP/2 headers and
 * trailers; the gateway maps it onto HTTP headers and envelope fields
 * (docs/protocols.md).
 *
 * Keys ending in `-bin` carry bytes (gRPC's binary metadata); every other key
 * carries printable ASCII text. The types say so, and the runtime checks it:
 * metadata that breaks the rules fails the call with INTERNAL and a logged
 * reason instead of reaching the wire.
 */

/** One metadata value: text, or bytes for a `-bin` key. */
export type MetadataValue = string | Uint8Array;

/**
 * Metadata as a plain object: a text key takes a string (or several), a
 * `-bin` key takes bytes (or several).
 *
 * @example
 * const metadata: MetadataRecord = { 'x-request-id': 'r-1', 'x-trace-bin': new Uint8Array([1, 2, 3]) };
 */
export interface MetadataRecord {
  [key: `${string}-bin`]: Uint8Array | Uint8Array[];
  [key: string]: string | string[] | Uint8Array | Uint8Array[];
}

/** The value type a key takes: bytes for `-bin` keys, text otherwise. */
export type MetadataValueFor<K extends string> = K extends `${string}-bin` ? Uint8Array | Uint8Array[] : string | string[];

/** Response compression a handler can choose for its call. */
export type ResponseCompression = 'gzip' | 'identity';

/**
 * What a handler reads and sets about its call beyond the messages
 * (`context.call`).
 *
 * @example
 * async unaryCall(request, context) {
 *   const [initial] = context.call.requestMetadata.get('x-grpc-test-echo-initial');
 *   if (typeof initial === 'string') context.call.setHeader('x-grpc-test-echo-initial', initial);
 *   context.call.setTrailer('x-checksum-bin', new Uint8Array([0xab]));
 *   context.call.setCompression('gzip');
 *   return reply;
 * }
 */
export interface CallMetadataControls {
  /** The request's metadata: text values as strings, `-bin` values as bytes. */
  readonly requestMetadata: IncomingMetadata;
  /** True when a request message of this call arrived compressed (gRPC only; false elsewhere). */
  readonly requestCompressed: boolean;
  /** Adds a response header; throws once the headers were sent. */
  setHeader<K extends string>(name: K, value: MetadataValueFor<K>): void;
  /** Sends the response headers now (they otherwise go with the first message or the status). */
  sendHeader(): void;
  /** True once the response headers went out. */
  readonly headerSent: boolean;
  /** Adds a response trailer, sent with the status on success and on error. */
  setTrailer<K extends string>(name: K, value: MetadataValueFor<K>): void;
  /** Compresses this call's response messages (`gzip`) or not (`identity`), overriding the app default. */
  setCompression(algorithm: ResponseCompression): void;
}

/** Read access to request metadata. */
export interface IncomingMetadata {
  /** Every value of `name` (case-insensitive); empty when absent. */
  get(name: string): MetadataValue[];
  /** Every key and its values. */
  toRecord(): Record<string, MetadataValue[]>;
}

const TEXT_KEY = /^[0-9a-z_.-]+$/;
const TEXT_VALUE = /^[\x20-\x7e]*$/;
/** Keys the protocol itself writes; `grpc-status-details-bin` stays allowed (rich error details). */
const RESERVED_KEYS = new Set(['grpc-status', 'grpc-message', 'grpc-encoding', 'grpc-accept-encoding', 'grpc-timeout', 'content-type', 'te']);

/** Why `name: value` is not valid metadata, or undefined when it is. */
export function metadataProblem(name: string, value: unknown): string | undefined {
  if (typeof name !== 'string' || !TEXT_KEY.test(name)) return `metadata key ${JSON.stringify(name)} is not lowercase letters, digits, '-', '_' or '.'`;
  if (RESERVED_KEYS.has(name)) return `metadata key ${name} is reserved for the gRPC protocol`;
  if (name.endsWith('-bin')) return value instanceof Uint8Array ? undefined : `metadata key ${name} ends in -bin and needs bytes (Uint8Array), got ${typeof value}`;
  if (typeof value !== 'string') return `metadata key ${name} needs a string value, got ${value instanceof Uint8Array ? 'bytes (only -bin keys take bytes)' : typeof value}`;
  return TEXT_VALUE.test(value) ? undefined : `metadata value of ${name} has characters outside printable ASCII`;
}

/** Invalid metadata set by a handler or carried by an error: the call fails with INTERNAL and this is logged. */
export class InvalidMetadataError extends Error {
  override readonly name = 'InvalidMetadataError';
}

/** Each `[name, value]` pair of `record` (arrays expanded), lowercased keys; throws InvalidMetadataError on the first bad one. */
export function metadataEntries(record: Readonly<Record<string, unknown>> | undefined): [string, MetadataValue][] {
  const entries: [string, MetadataValue][] = [];
  if (record === undefined || record === null) return entries;
  if (typeof record !== 'object') throw new InvalidMetadataError(`metadata must be an object, got ${typeof record}`);
  for (const key of Object.keys(record)) {
    const raw = record[key];
    const name = key.toLowerCase();
    for (const value of Array.isArray(raw) ? (raw as unknown[]) : [raw]) {
      const problem = metadataProblem(name, value);
      if (problem !== undefined) throw new InvalidMetadataError(problem);
      entries.push([name, value as MetadataValue]);
    }
  }
  return entries;
}

/** Adds `values` under `name` in `into`, after checking them. */
export function addMetadata(into: Map<string, MetadataValue[]>, name: string, value: unknown): void {
  for (const [key, item] of metadataEntries({ [name]: value })) {
    const list = into.get(key);
    if (list === undefined) into.set(key, [item]);
    else list.push(item);
  }
}

/** A plain-object view of collected metadata: one value stays single, several become an array. */
export function metadataMapToRecord(map: ReadonlyMap<string, readonly MetadataValue[]>): MetadataRecord {
  const out: Record<string, MetadataValue | MetadataValue[]> = {};
  for (const [key, values] of map) out[key] = values.length === 1 ? (values[0] as MetadataValue) : [...values];
  return out as MetadataRecord;
}

/** Request metadata over a plain map of values. */
export class MapIncomingMetadata implements IncomingMetadata {
  readonly #values: ReadonlyMap<string, readonly MetadataValue[]>;
  constructor(values: ReadonlyMap<string, readonly MetadataValue[]>) {
    this.#values = values;
  }
  get(name: string): MetadataValue[] {
    return [...(this.#values.get(name.toLowerCase()) ?? [])];
  }
  toRecord(): Record<string, MetadataValue[]> {
    const out: Record<string, MetadataValue[]> = {};
    for (const [key, values] of this.#values) out[key] = [...values];
    return out;
  }
}

/**
 * Call controls for transports that buffer a reply (HTTP, WebSocket, UDP,
 * TCP): headers and trailers are collected and the transport reads them when
 * it writes its reply. Everything is built on first use, so calls that never
 * touch `context.call` pay for one small object.
 */
export class CollectedCallMetadata implements CallMetadataControls {
  /** Response headers set by the handler; undefined when none. */
  headers: Map<string, MetadataValue[]> | undefined = undefined;
  /** Response trailers set by the handler; undefined when none. */
  trailers: Map<string, MetadataValue[]> | undefined = undefined;
  compression: ResponseCompression | undefined = undefined;
  readonly #incoming: () => IncomingMetadata;
  readonly #compressed: (() => boolean) | undefined;
  #requestMetadata: IncomingMetadata | undefined = undefined;
  #headerSent = false;

  /**
   * @param incoming builds the request metadata on first read
   * @param compressed says whether a request message arrived compressed (gRPC); false when absent
   */
  constructor(incoming: () => IncomingMetadata, compressed?: () => boolean) {
    this.#incoming = incoming;
    this.#compressed = compressed;
  }
  get requestCompressed(): boolean {
    return this.#compressed?.() ?? false;
  }
  get requestMetadata(): IncomingMetadata {
    if (this.#requestMetadata === undefined) this.#requestMetadata = this.#incoming();
    return this.#requestMetadata;
  }
  setHeader<K extends string>(name: K, value: MetadataValueFor<K>): void {
    if (this.#headerSent) throw new Error(`setHeader(${name}): the response headers were already sent`);
    this.headers ??= new Map();
    addMetadata(this.headers, name, value);
  }
  sendHeader(): void {
    this.#headerSent = true;
  }
  get headerSent(): boolean {
    return this.#headerSent;
  }
  setTrailer<K extends string>(name: K, value: MetadataValueFor<K>): void {
    this.trailers ??= new Map();
    addMetadata(this.trailers, name, value);
  }
  setCompression(algorithm: ResponseCompression): void {
    if (algorithm !== 'gzip' && algorithm !== 'identity') throw new TypeError(`setCompression: expected 'gzip' or 'identity', got ${String(algorithm)}`);
    this.compression = algorithm;
  }
}

/** Text form of a metadata value for text transports: `-bin` bytes become base64. */
export function metadataText(value: MetadataValue): string {
  return typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
}

/** Request metadata from text headers: `-bin` values are base64 and become bytes. */
export function incomingFromHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): IncomingMetadata {
  const values = new Map<string, MetadataValue[]>();
  for (const key of Object.keys(headers)) {
    const raw = headers[key];
    if (raw === undefined) continue;
    const name = key.toLowerCase();
    const list = (Array.isArray(raw) ? raw : [raw]).map((v): MetadataValue => (name.endsWith('-bin') ? Buffer.from(v, 'base64') : v));
    values.set(name, list);
  }
  return new MapIncomingMetadata(values);
}

/** The string-valued entries of an envelope's `metadata` object (other values are not metadata). */
export function envelopeMetadataText(metadata: Readonly<Record<string, unknown>>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of Object.keys(metadata)) {
    const value = metadata[key];
    if (typeof value === 'string') out[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out[key] = value as string[];
  }
  return out;
}
