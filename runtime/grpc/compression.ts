/**
 * Response compression with a level and a size threshold (spec 4.8, 8.6).
 *
 * grpc-js 1.14's server never compresses responses: its framing
 * (`BaseServerInterceptingCall.serializeMessage`) always writes the
 * "compressed" flag as 0, and it has no level or threshold. Compressing inside
 * a serializer would be wrong (the flag must say the bytes are gzip), so fw
 * replaces that one framing method, and only for methods fw registered with
 * compression on (keyed by their serializer):
 *
 * - the call advertises `grpc-encoding: gzip` in its response headers only
 *   when the client listed gzip in `grpc-accept-encoding`;
 * - each message larger than `threshold` bytes is gzipped at `level` and
 *   framed with flag 1; smaller ones go out as they are with flag 0 (allowed
 *   per message by the gRPC protocol).
 *
 * If a future grpc-js renames that method, enabling compression throws at
 * `listen()` instead of silently sending uncompressed data.
 */
import { Metadata } from '@grpc/grpc-js';
import { gzipSync } from 'node:zlib';
import type { CompressionSettings } from './options';

type Serialize = (value: unknown) => Buffer;

interface FramingCall {
  handler: { serialize: Serialize };
  stream: { sentHeaders?: Record<string, unknown> };
}

const settingsBySerializer = new WeakMap<Serialize, CompressionSettings>();
let installed = false;

/** A serializer for `serialize` whose messages are compressed per `settings`. */
export function compressingSerializer(serialize: Serialize, settings: CompressionSettings): Serialize {
  installFraming();
  const wrapped: Serialize = (value) => serialize(value);
  settingsBySerializer.set(wrapped, settings);
  return wrapped;
}

/** Sends `grpc-encoding: gzip` response headers when the caller accepts gzip. */
export function advertiseGzip(call: { metadata: Metadata; sendMetadata(metadata: Metadata): void }): void {
  const accepted = call.metadata.get('grpc-accept-encoding');
  for (const value of accepted) {
    if (typeof value === 'string' && /(^|,)\s*gzip\s*(,|$)/.test(value)) {
      const headers = new Metadata();
      headers.set('grpc-encoding', 'gzip');
      call.sendMetadata(headers);
      return;
    }
  }
}

function installFraming(): void {
  if (installed) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const internals = require('@grpc/grpc-js/build/src/server-interceptors') as { BaseServerInterceptingCall?: { prototype: Record<string, unknown> } };
  const proto = internals.BaseServerInterceptingCall?.prototype;
  const original = proto?.serializeMessage;
  if (proto === undefined || typeof original !== 'function') {
    throw new Error('grpc.compression: this @grpc/grpc-js version has no BaseServerInterceptingCall.serializeMessage; response compression is unavailable');
  }
  proto.serializeMessage = function serializeMessage(this: FramingCall, value: unknown): Buffer {
    const settings = settingsBySerializer.get(this.handler.serialize);
    if (settings === undefined || this.stream.sentHeaders?.['grpc-encoding'] !== 'gzip') {
      return (original as (this: FramingCall, value: unknown) => Buffer).call(this, value);
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
