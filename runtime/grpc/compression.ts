/**
 * Response compression (app-wide with a level and a size threshold, spec 4.8,
 * 8.6; or chosen per call by the handler) and the request's compression flag.
 *
 * grpc-js 1.14's server never compresses responses: its framing
 * (`BaseServerInterceptingCall.serializeMessage`) always writes the
 * "compressed" flag as 0, and it has no level or threshold. Compressing inside
 * a serializer would be wrong (the flag must say the bytes are gzip), so fw
 * replaces that one framing method, plus the hooks below:
 *
 * - grpc-js removes `grpc-accept-encoding` from the call's metadata, so fw
 *   reads it where grpc-js creates the call (`getServerInterceptingCall`);
 * - the call advertises `grpc-encoding: gzip` in its response headers only
 *   when the client listed gzip there and the method (app-wide setting) or
 *   the handler (`setCompression('gzip')`) asked for it;
 * - with the app-wide setting each message larger than `threshold` bytes is
 *   gzipped at `level` and framed with flag 1, smaller ones go out with flag 0
 *   (allowed per message by the gRPC protocol); a per-call `gzip` compresses
 *   every message;
 * - grpc-js decompresses requests without telling anyone, so fw notes the
 *   flag of each incoming message (`decompressAndMaybePush`).
 *
 * If a future grpc-js renames these, creating an application throws instead
 * of silently sending uncompressed data.
 */
import type { Metadata } from '@grpc/grpc-js';
import { MetadataMap } from './metadata-map';
import { gzipSync } from 'node:zlib';
import type { ResponseCompression } from '../core/call-metadata';
import type { CompressionSettings } from './options';

type Serialize = (value: unknown) => Buffer;

interface FramingCall {
  handler: { serialize: Serialize };
  stream: object;
}

/** What fw knows about one HTTP/2 stream's compression. */
export interface StreamCompression {
  acceptsGzip: boolean;
  /** The handler's per-call choice. */
  choice: ResponseCompression | undefined;
  /** Set when the response headers went out: whether they said gzip. */
  advertised: boolean | undefined;
  requestCompressed: boolean;
}

const settingsBySerializer = new WeakMap<Serialize, CompressionSettings>();
/** Where a stream's state lives: a symbol property on the HTTP/2 stream (read per message, cheaper than a WeakMap). */
export const STATE = Symbol('fw.compression');
/** Anything carrying a call's compression state: an HTTP/2 stream under grpc-js, or fw's own server call. */
export type Tagged = { [STATE]?: StreamCompression };
const PER_CALL_LEVEL = 6;
let installed = false;

/** A serializer for `serialize` whose messages are compressed per `settings`. */
export function compressingSerializer(serialize: Serialize, settings: CompressionSettings): Serialize {
  installFraming();
  const wrapped: Serialize = (value) => serialize(value);
  settingsBySerializer.set(wrapped, settings);
  return wrapped;
}

/** The HTTP/2 stream under a grpc-js server call object (through its interceptor chain). */
function streamOf(source: unknown): object | undefined {
  let call = (source as { call?: unknown }).call;
  for (let depth = 0; depth < 8 && typeof call === 'object' && call !== null; depth++) {
    const stream = (call as { stream?: unknown }).stream;
    if (typeof stream === 'object' && stream !== null) return stream;
    call = (call as { nextCall?: unknown }).nextCall;
  }
  return undefined;
}

/**
 * Records the handler's compression choice for the call behind `source`.
 * Throws when the headers already went out without announcing gzip.
 */
export function chooseCompression(source: unknown, algorithm: ResponseCompression): void {
  const state = compressionStateOf(source);
  if (state === undefined) return;
  if (algorithm === 'gzip' && state.advertised === false) throw new Error("setCompression('gzip'): the response headers were already sent without grpc-encoding: gzip");
  state.choice = algorithm;
}

/** True once a compressed message arrived on the call behind `source`. */
export function requestWasCompressed(source: unknown): boolean {
  return compressionStateOf(source)?.requestCompressed === true;
}

/** The compression state of the call behind `source` (fw's engine tags its call; grpc-js's is found on its HTTP/2 stream). */
export function compressionStateOf(source: unknown): StreamCompression | undefined {
  const own = (source as Tagged)[STATE];
  if (own !== undefined) return own;
  const stream = streamOf(source);
  return stream === undefined ? undefined : (stream as Tagged)[STATE];
}

function acceptsGzip(value: unknown): boolean {
  return typeof value === 'string' && /(^|,)\s*gzip\s*(,|$)/.test(value);
}

/** A fresh compression state for a call whose request carried `acceptEncoding` (its grpc-accept-encoding). */
export function newStreamCompression(acceptEncoding: unknown): StreamCompression {
  return { acceptsGzip: acceptsGzip(acceptEncoding), choice: undefined, advertised: undefined, requestCompressed: false };
}

/** The app-wide settings `serialize` was wrapped with by {@link compressingSerializer}, if any. */
export function compressionSettingsOf(serialize: Serialize): CompressionSettings | undefined {
  return settingsBySerializer.get(serialize);
}

/**
 * Decides, as the response headers go out, whether they announce gzip: the
 * handler's choice, else the method's app-wide setting, and only for a
 * client that accepts gzip. Returns the decision (kept in the state).
 */
export function decideAdvertised(state: StreamCompression, serialize: Serialize): boolean {
  if (state.advertised !== undefined) return state.advertised;
  const wanted = state.choice === undefined ? settingsBySerializer.has(serialize) : state.choice === 'gzip';
  state.advertised = wanted && state.acceptsGzip;
  return state.advertised;
}

/** One response message framed (flag, length, payload), gzipped per the state and settings. */
export function frameResponse(raw: Buffer, state: StreamCompression | undefined, settings: CompressionSettings | undefined): Buffer {
  const compress = state?.advertised === true && state.choice !== 'identity' && (state.choice === 'gzip' || (settings !== undefined && raw.byteLength > settings.threshold));
  const payload = compress ? gzipSync(raw, { level: settings?.level ?? PER_CALL_LEVEL }) : raw;
  const framed = Buffer.allocUnsafe(payload.byteLength + 5);
  framed[0] = compress ? 1 : 0;
  framed.writeUInt32BE(payload.byteLength, 1);
  payload.copy(framed, 5);
  return framed;
}

type Internals = {
  BaseServerInterceptingCall?: { prototype: Record<string, unknown> };
  getServerInterceptingCall?: (...args: unknown[]) => unknown;
};

type Method<A extends unknown[], R> = (this: FramingCall, ...args: A) => R;

/** Installs the framing hooks into grpc-js (once per process). */
export function installFraming(): void {
  if (installed) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const internals = require('@grpc/grpc-js/build/src/server-interceptors') as Internals;
  const proto = internals.BaseServerInterceptingCall?.prototype;
  const serializeMessage = proto?.serializeMessage as Method<[unknown], Buffer> | undefined;
  const sendMetadata = proto?.sendMetadata as Method<[Metadata | undefined], unknown> | undefined;
  const decompressAndMaybePush = proto?.decompressAndMaybePush as Method<[{ compressedMessage: Buffer }], unknown> | undefined;
  const createCall = internals.getServerInterceptingCall;
  if (proto === undefined || typeof serializeMessage !== 'function' || typeof sendMetadata !== 'function' || typeof decompressAndMaybePush !== 'function' || typeof createCall !== 'function') {
    throw new Error('fw/grpc: this @grpc/grpc-js version lacks the server framing hooks fw needs for compression');
  }
  // grpc-js strips grpc-accept-encoding from the call's metadata, so read it where the call is created.
  internals.getServerInterceptingCall = function getServerInterceptingCall(...args: unknown[]): unknown {
    const [, stream, headers] = args as [unknown, object, Record<string, unknown>];
    (stream as Tagged)[STATE] = newStreamCompression(headers['grpc-accept-encoding']);
    return createCall.apply(this, args);
  };
  proto.decompressAndMaybePush = function (this: FramingCall, entry: { compressedMessage: Buffer }): unknown {
    if (entry.compressedMessage.readUInt8(0) === 1) {
      const state = (this.stream as Tagged)[STATE];
      if (state !== undefined) state.requestCompressed = true;
    }
    return decompressAndMaybePush.call(this, entry);
  };
  proto.sendMetadata = function (this: FramingCall, metadata: Metadata | undefined): unknown {
    const state = (this.stream as Tagged)[STATE];
    if (state === undefined || state.advertised !== undefined) return sendMetadata.call(this, metadata);
    if (!decideAdvertised(state, this.handler.serialize)) return sendMetadata.call(this, metadata);
    // grpc-js only clones, sets and reads `toHttp2Headers()` of the metadata it sends: fw's map serves.
    const headers = metadata === undefined ? (new MetadataMap() as unknown as Metadata) : metadata.clone();
    headers.set('grpc-encoding', 'gzip');
    return sendMetadata.call(this, headers);
  };
  proto.serializeMessage = function (this: FramingCall, value: unknown): Buffer {
    const state = (this.stream as Tagged)[STATE];
    if (state?.advertised !== true || state.choice === 'identity') return serializeMessage.call(this, value);
    return frameResponse(this.handler.serialize(value), state, settingsBySerializer.get(this.handler.serialize));
  };
  installed = true;
}
