/**
 * gRPC over HTTP/2 as fw's own server writes it (the gRPC PROTOCOL-HTTP2
 * document): request metadata from headers, response headers and status
 * trailers, `grpc-message` percent-encoding, and the refusals of a request
 * before any handler runs.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http2';
import { GrpcStatus } from '../../core/status';
import { GrpcError } from '../errors';
import { MetadataMap, type OutgoingMetadata } from '../metadata-map';

/** Headers the protocol owns; they never reach a handler's metadata (as grpc-js strips them too). */
const RESERVED = ['grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding', 'accept-encoding', 'te', 'content-type'];

/** The request metadata of `headers` (`-bin` values base64-decoded to Buffers). */
export function requestMetadata(headers: IncomingHttpHeaders): MetadataMap {
  return MetadataMap.fromHttp2Headers(headers, RESERVED);
}

/** Adds `metadata` to `headers` (`-bin` values base64, repeated keys as arrays). */
export function addMetadataHeaders(headers: OutgoingHttpHeaders, metadata: OutgoingMetadata | undefined): void {
  if (metadata === undefined) return;
  const out = metadata.toHttp2Headers();
  for (const key of Object.keys(out)) headers[key] = out[key];
}

/**
 * `grpc-message` as the protocol encodes it: bytes outside printable ASCII,
 * and `%` itself, as `%XX` of their UTF-8 encoding.
 */
export function percentEncode(message: string): string {
  let plain = true;
  for (let i = 0; i < message.length; i++) {
    const c = message.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x25) {
      plain = false;
      break;
    }
  }
  if (plain) return message;
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte < 0x20 || byte > 0x7e || byte === 0x25 ? `%${byte.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(byte);
  }
  return out;
}

/** The status trailers: grpc-status, grpc-message when there is one, then the trailing metadata. */
export function statusHeaders(code: number, details: string, metadata: OutgoingMetadata | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'grpc-status': String(code) };
  if (details !== '') headers['grpc-message'] = percentEncode(details);
  addMetadataHeaders(headers, metadata);
  return headers;
}

/** True for `application/grpc` and `application/grpc+…` (gRPC-Web is a different protocol). */
export function isGrpcContentType(type: string | undefined): boolean {
  return typeof type === 'string' && type.startsWith('application/grpc') && !type.startsWith('application/grpc-web');
}

/** What a server reports to callers for a request encoding it cannot read. */
export function unsupportedEncoding(encoding: string): GrpcError {
  return new GrpcError(GrpcStatus.UNIMPLEMENTED, `Request compression ${encoding} is not supported (accepted: identity, gzip)`);
}
