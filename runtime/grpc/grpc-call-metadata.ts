/**
 * `context.call` of a gRPC call: request metadata as the engine parsed it
 * (`-bin` values are Buffers), response headers sent once through the
 * engine's `sendMetadata`, trailers handed to the engine with the status, and the
 * per-call compression choice passed to the framing hooks.
 */
import {
  addMetadata,
  type CallMetadataControls,
  type IncomingMetadata,
  type MetadataValue,
  type MetadataValueFor,
  type ResponseCompression,
} from '../core/call-metadata';
import { chooseCompression, requestWasCompressed } from './compression';
import { valuesToMetadata as toMetadata } from './errors';
import type { MetadataMap, OutgoingMetadata, ReadableMetadata } from './metadata-map';

/** The engine's side of a call that can send response headers. */
export interface HeaderSink {
  readonly metadata: ReadableMetadata;
  sendMetadata?(metadata: OutgoingMetadata): void;
}

export class GrpcCallMetadata implements CallMetadataControls {
  readonly #source: HeaderSink;
  readonly #headers = new Map<string, MetadataValue[]>();
  readonly #trailers = new Map<string, MetadataValue[]>();
  readonly #contentType: string | undefined;
  #requestMetadata: IncomingMetadata | undefined = undefined;
  #headerSent = false;

  constructor(source: HeaderSink, contentType: string | undefined) {
    this.#source = source;
    this.#contentType = contentType;
  }

  get requestMetadata(): IncomingMetadata {
    if (this.#requestMetadata === undefined) this.#requestMetadata = new GrpcIncomingMetadata(this.#source.metadata);
    return this.#requestMetadata;
  }
  get requestCompressed(): boolean {
    return requestWasCompressed(this.#source);
  }
  setHeader<K extends string>(name: K, value: MetadataValueFor<K>): void {
    if (this.#headerSent) throw new Error(`setHeader(${name}): the response headers were already sent`);
    addMetadata(this.#headers, name, value);
  }
  sendHeader(): void {
    if (this.#headerSent) return;
    this.#headerSent = true;
    const headers = toMetadata(this.#headers);
    if (this.#contentType !== undefined) headers.set('content-type', this.#contentType);
    this.#source.sendMetadata?.(headers);
  }
  get headerSent(): boolean {
    return this.#headerSent;
  }
  /** True when the handler set response headers (sent or not). */
  get hasHeaders(): boolean {
    return this.#headers.size > 0;
  }
  setTrailer<K extends string>(name: K, value: MetadataValueFor<K>): void {
    addMetadata(this.#trailers, name, value);
  }
  setCompression(algorithm: ResponseCompression): void {
    if (algorithm !== 'gzip' && algorithm !== 'identity') throw new TypeError(`setCompression: expected 'gzip' or 'identity', got ${String(algorithm)}`);
    chooseCompression(this.#source, algorithm);
  }
  /** The trailers set so far, merged with `extra` (an error's metadata). */
  trailers(extra?: MetadataMap): MetadataMap {
    const trailers = toMetadata(this.#trailers);
    if (extra !== undefined) trailers.merge(extra);
    return trailers;
  }
}

class GrpcIncomingMetadata implements IncomingMetadata {
  readonly #metadata: ReadableMetadata;
  constructor(metadata: ReadableMetadata) {
    this.#metadata = metadata;
  }
  get(name: string): MetadataValue[] {
    return this.#metadata.get(name.toLowerCase());
  }
  toRecord(): Record<string, MetadataValue[]> {
    return this.#metadata.toJSON();
  }
}
