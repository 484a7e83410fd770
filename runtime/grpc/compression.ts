/**
 * Response compression with a level and a size threshold (spec 4.8, 8.6).
 *
 * grpc-js 1.14's server never compresses responses: its framing
 * (`BaseServerInterceptingCall.serializeMessage`) always writes the
 * "compressed" flag as 0, and it has no level or threshold. Compressing inside
 * a serializer would be wrong (the flag must say the bytes are gzip), so fw
 * replaces that one framing method, and only for methods fw registered with
 * compression on (keyed by their serializer), plus the two hooks below:
 *
 * - grpc-js removes `grpc-accept-encoding` from the call's metadata, so fw
 *   reads it where grpc-js creates the call (`getServerInterceptingCall`);
 * - the call advertises `grpc-encoding: gzip` in its response headers only
 *   when the client listed gzip there;
 * - each message larger than `threshold` bytes is gzipped at `level` and
 *   framed with flag 1; smaller ones go out as they are with flag 0 (allowed
 *   per message by the gRPC protocol).
 *
 * If a future grpc-js renames these, enabling compression throws at
 * `listen()` instead of silently sending uncompressed data.
 */
import { Metadata } from '@grpc/grpc-js';
import { gzipSync } from 'node:zlib';
import type { CompressionSettings } from './options';

type Serialize = (value: unknown) => Buffer;

interface FramingCall {
  handler: { serialize: Serialize };
  stream: object;
}

const settingsBySerializer = new WeakMap<Serialize, CompressionSettings>();
/** HTTP/2 streams whose caller accepts gzip, on methods with compression on. */
const gzipStreams = new WeakSet<object>();
let installed = false;

/** A serializer for `serialize` whose messages are compressed per `settings`. */
export function compressingSerializer(serialize: Serialize, settings: CompressionSettings): Serialize {
  installFraming();
  const wrapped: Serialize = (value) => serialize(value);
  settingsBySerializer.set(wrapped, settings);
  return wrapped;
}

function acceptsGzip(value: unknown): boolean {
  return typeof value === 'string' && /(^|,)\s*gzip\s*(,|$)/.test(value);
}

type Internals = {
  BaseServerInterceptingCall?: { prototype: Record<string, unknown> };
  getServerInterceptingCall?: (...args: unknown[]) => unknown;
};

function installFraming(): void {
  if (installed) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const internals = require('@grpc/grpc-js/build/src/server-interceptors') as Internals;
  const proto = internals.BaseServerInterceptingCall?.prototype;
  const serializeMessage = proto?.serializeMessage;
  const sendMetadata = proto?.sendMetadata;
  const createCall = internals.getServerInterceptingCall;
  if (proto === undefined || typeof serializeMessage !== 'function' || typeof sendMetadata !== 'function' || typeof createCall !== 'function') {
    throw new Error('grpc.compression: this @grpc/grpc-js version lacks the server framing hooks fw needs; response compression is unavailable');
  }
  // grpc-js strips grpc-accept-encoding from the call's metadata, so read it where the call is created.
  internals.getServerInterceptingCall = function getServerInterceptingCall(...args: unknown[]): unknown {
    const [, stream, headers, , handler] = args as [unknown, object, Record<string, unknown>, unknown, { serialize?: Serialize } | undefined];
    if (handler?.serialize !== undefined && settingsBySerializer.has(handler.serialize) && acceptsGzip(headers['grpc-accept-encoding'])) {
      gzipStreams.add(stream);
    }
    return createCall.apply(this, args);
  };
  proto.sendMetadata = function (this: FramingCall, metadata: Metadata | undefined): unknown {
    if (!gzipStreams.has(this.stream)) return (sendMetadata as (this: FramingCall, m: unknown) => unknown).call(this, metadata);
    const headers = metadata === undefined ? new Metadata() : metadata.clone();
    headers.set('grpc-encoding', 'gzip');
    return (sendMetadata as (this: FramingCall, m: unknown) => unknown).call(this, headers);
  };
  proto.serializeMessage = function (this: FramingCall, value: unknown): Buffer {
    const settings = settingsBySerializer.get(this.handler.serialize);
    if (settings === undefined || !gzipStreams.has(this.stream)) {
      return (serializeMessage as (this: FramingCall, value: unknown) => Buffer).call(this, value);
    }
    const raw = this.handler.serialize(value);
    const compress = raw.byteLength > settings.threshold;
    const payload = compress ? gzipSync(raw, { level: settings.level }) : raw;
    const framed = Buffer.allocUnsafe(payload.byteLength + 5);
    framed.writeUInt8(compress ? 1 : 0, 0);
    framed.writeUInt32BE(payload.byteLength, 1);
    payload.copy(framed, 5);
    return framed;
  };
  installed = true;
}
