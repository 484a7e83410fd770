/**
 * Writes one call's reply in its wire protocol (docs/protocols.md):
 * - Connect unary: status from the error table, the bare message, or the
 *   JSON error body; fw's code in `x-error-code`;
 * - Connect streaming: 200, enveloped messages, then the end-of-stream
 *   envelope (flag 0x02) `{}` or `{"error": …, "metadata": …}`;
 * - gRPC-Web: 200, enveloped messages, then a trailers envelope (flag 0x80)
 *   `grpc-status`, `grpc-message`, `x-error-code`; gRPC-Web text base64s
 *   every write (clients decode concatenated padded chunks).
 * Each is the call's ReplySink: messages arrive encoded (message-codec.ts),
 * failures as ServiceErrors rendered here through the wire-error table.
 * Writes honour backpressure; once the call is done, later writes are no-ops.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import { metadataText, type CollectedCallMetadata, type MetadataValue } from '../../core/call-metadata';
import { drainOrClose } from '../drain-or-close';
import type { ServiceError } from '../errors';
import type { ReplySink } from '../transport-adapter';
import { encodeEnvelope, FLAG_END_STREAM, FLAG_TRAILERS } from '../wire/envelope';
import type { WebRpcRequest } from './protocol';
import { connectErrorJson, errorMetadata, type WireError } from './wire-errors';

const RESOLVED = Promise.resolve();

/** What the handler set through `context.call`, read when the reply is written. */
export type CallMetadataSource = () => CollectedCallMetadata | undefined;

/** `[name, value, …]` for a flat writeHead list; `prefix` marks Connect unary trailers (`trailer-`). */
function flatMetadata(entries: Map<string, MetadataValue[]> | undefined, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, values] of entries ?? []) for (const v of values) out.push(prefix + name, metadataText(v));
  return out;
}

/** A failure in the caller's wire terms (the user's transformError applied). */
export type WireErrorOf = (error: ServiceError) => WireError;

/** Where a Connect or gRPC-Web call's encoded messages and outcome go. */
export interface WebRpcReplySink extends ReplySink<Buffer | string> {
  /** True once the reply is complete (or the client is gone). */
  readonly done: boolean;
  /** Sends one stream message; the promise resolves when more may be written. */
  item(bytes: Buffer | string): Promise<void>;
}

/** The client is gone: node:http marks the response destroyed, node:http2's compat response its stream. */
function gone(res: ServerResponse): boolean {
  return res.destroyed === true || (res as { stream?: { destroyed?: boolean } }).stream?.destroyed === true;
}

function drained(res: ServerResponse): Promise<void> {
  return gone(res) ? RESOLVED : drainOrClose(res);
}

/** Shared by the enveloped protocols: headers on first write, then frames. */
abstract class EnvelopedReply implements WebRpcReplySink {
  protected readonly res: ServerResponse;
  protected readonly metadata: CallMetadataSource;
  readonly #head: string[];
  readonly #wireError: WireErrorOf;
  #done = false;

  constructor(res: ServerResponse, head: string[], metadata: CallMetadataSource, wireError: WireErrorOf) {
    this.res = res;
    this.#head = head;
    this.metadata = metadata;
    this.#wireError = wireError;
  }

  get done(): boolean {
    return this.#done || gone(this.res);
  }

  protected abstract frame(bytes: Buffer): Buffer | string;
  protected abstract trailer(error: WireError | undefined): Buffer | string;

  #open(): void {
    if (!this.res.headersSent) this.res.writeHead(200, [...this.#head, ...flatMetadata(this.metadata()?.headers)]);
  }

  /** A unary response on an enveloped wire: one message, then end() sends the trailer. */
  message(bytes: Buffer | string): void {
    void this.item(bytes);
  }

  item(bytes: Buffer | string): Promise<void> {
    if (this.done) return RESOLVED;
    this.#open();
    return this.res.write(this.frame(typeof bytes === 'string' ? Buffer.from(bytes) : bytes)) ? RESOLVED : drained(this.res);
  }

  end(): void {
    this.#finish(undefined);
  }

  fail(error: ServiceError): void {
    if (this.done) return;
    this.#finish(this.#wireError(error));
  }

  #finish(error: WireError | undefined): void {
    if (this.done) return;
    this.#done = true;
    this.#open();
    this.res.end(this.trailer(error));
  }
}

class ConnectStreamReply extends EnvelopedReply {
  protected frame(bytes: Buffer): Buffer {
    return encodeEnvelope(0, bytes);
  }

  protected trailer(error: WireError | undefined): Buffer {
    const metadata: Record<string, string[]> = {};
    for (const [name, values] of this.metadata()?.trailers ?? []) metadata[name] = values.map(metadataText);
    if (error !== undefined) for (const [k, v] of Object.entries(errorMetadata(error))) metadata[k] = [v];
    const meta = Object.keys(metadata).length === 0 ? undefined : JSON.stringify(metadata);
    if (error === undefined) return encodeEnvelope(FLAG_END_STREAM, Buffer.from(meta === undefined ? '{}' : `{"metadata":${meta}}`));
    return encodeEnvelope(FLAG_END_STREAM, Buffer.from(`{"error":${connectErrorJson(error)},"metadata":${meta as string}}`));
  }
}

class GrpcWebReply extends EnvelopedReply {
  readonly #text: boolean;

  constructor(res: ServerResponse, head: string[], metadata: CallMetadataSource, wireError: WireErrorOf, text: boolean) {
    super(res, head, metadata, wireError);
    this.#text = text;
  }

  protected frame(bytes: Buffer): Buffer | string {
    const frame = encodeEnvelope(0, bytes);
    return this.#text ? frame.toString('base64') : frame;
  }

  protected trailer(error: WireError | undefined): Buffer | string {
    let block = error === undefined ? 'grpc-status:0\r\ngrpc-message:\r\n' : `grpc-status:${error.grpcCode}\r\ngrpc-message:${encodeURIComponent(error.message)}\r\n`;
    for (const [name, values] of this.metadata()?.trailers ?? []) for (const v of values) block += `${name}:${metadataText(v)}\r\n`;
    if (error !== undefined) for (const [k, v] of Object.entries(errorMetadata(error))) block += `${k}:${v}\r\n`;
    const frame = encodeEnvelope(FLAG_TRAILERS, Buffer.from(block));
    return this.#text ? frame.toString('base64') : frame;
  }
}

class ConnectUnaryReply implements WebRpcReplySink {
  readonly #res: ServerResponse;
  readonly #contentType: string;
  readonly #traceHeader: string;
  readonly #traceId: string;
  readonly #metadata: CallMetadataSource;
  readonly #wireError: WireErrorOf;
  #done = false;

  constructor(res: ServerResponse, contentType: string, traceHeader: string, traceId: string, metadata: CallMetadataSource, wireError: WireErrorOf) {
    this.#res = res;
    this.#contentType = contentType;
    this.#traceHeader = traceHeader;
    this.#traceId = traceId;
    this.#metadata = metadata;
    this.#wireError = wireError;
  }

  /** Headers and `trailer-`prefixed trailers the handler set (none: no work). */
  #handlerMetadata(): string[] {
    const call = this.#metadata();
    return call === undefined ? [] : [...flatMetadata(call.headers), ...flatMetadata(call.trailers, 'trailer-')];
  }

  get done(): boolean {
    return this.#done || gone(this.#res);
  }

  /** Connect unary carries no stream: an item is the one message. */
  item(bytes: Buffer | string): Promise<void> {
    this.message(bytes);
    return RESOLVED;
  }

  message(bytes: Buffer | string): void {
    if (this.done) return;
    this.#done = true;
    const length = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
    const head = ['Content-Type', this.#contentType, 'Content-Length', String(length), this.#traceHeader, this.#traceId];
    if (this.#metadata() !== undefined) head.push(...this.#handlerMetadata());
    this.#res.writeHead(200, head);
    this.#res.end(bytes);
  }

  end(): void {
    // A unary reply is complete once its one message is written.
  }

  fail(failure: ServiceError): void {
    if (this.done) return;
    this.#done = true;
    const error = this.#wireError(failure);
    const body = connectErrorJson(error);
    const head = ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), this.#traceHeader, this.#traceId];
    for (const [k, v] of Object.entries(errorMetadata(error))) head.push(k, v);
    head.push(...this.#handlerMetadata());
    this.#res.writeHead(error.httpStatus, head);
    this.#res.end(body);
  }
}

/**
 * The reply sink for `wire` on `res`; `wireError` renders a failure (the
 * user's transformError, then the wire-error table); `traceHeader`/`traceId` go out with the
 * response headers, and what the handler set through `context.call`
 * (`metadata`) as headers and trailers: Connect unary trailers as
 * `trailer-<name>` headers, Connect streaming ones in the end-of-stream
 * `metadata`, gRPC-Web ones in the trailers envelope.
 */
export function webRpcReplySink(res: ServerResponse, wire: WebRpcRequest, traceHeader: string, traceId: string, metadata: CallMetadataSource, wireError: WireErrorOf): WebRpcReplySink {
  if (wire.protocol === 'connect' && !wire.enveloped) return new ConnectUnaryReply(res, wire.contentType, traceHeader, traceId, metadata, wireError);
  const head = ['Content-Type', wire.contentType, traceHeader, traceId];
  if (wire.protocol === 'connect') return new ConnectStreamReply(res, head, metadata, wireError);
  return new GrpcWebReply(res, head, metadata, wireError, wire.text);
}
