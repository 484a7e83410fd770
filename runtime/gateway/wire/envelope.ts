/**
 * The 5-byte message envelope of gRPC-Web and Connect streaming
 * (docs/protocols.md): `flags u8 | length u32 BE | message`. Flag bits:
 * 0x01 compressed, 0x02 Connect end-of-stream, 0x80 gRPC-Web trailers.
 * Reading is incremental and bounded: a message longer than the limit is
 * refused before its bytes are buffered, and a body that stops inside an
 * envelope is an error, never a silently short stream.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import { LengthPrefixedReader, type Envelope } from '../../core/envelope-reader';
import { catalogueError, type ServiceError } from '../errors';

export type { Envelope } from '../../core/envelope-reader';

export const ENVELOPE_HEADER_BYTES = 5;
export const FLAG_COMPRESSED = 0x01;
export const FLAG_END_STREAM = 0x02;
export const FLAG_TRAILERS = 0x80;

/** Wraps `data` in an envelope with `flags`. */
export function encodeEnvelope(flags: number, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(ENVELOPE_HEADER_BYTES + data.length);
  out[0] = flags;
  out.writeUInt32BE(data.length, 1);
  out.set(data, ENVELOPE_HEADER_BYTES);
  return out;
}

function tooLarge(size: number, limit: number): ServiceError {
  return catalogueError('RESOURCE_EXHAUSTED', `Message of ${size} bytes exceeds the ${limit}-byte limit`, { limit });
}

/** Incremental parser: push chunks, take whole envelopes; its refusals are gateway ServiceErrors. */
export class EnvelopeReader extends LengthPrefixedReader {
  constructor(limit: number) {
    super(limit, { tooLarge, truncated: () => catalogueError('INVALID_ARGUMENT', 'Request body ended inside a message envelope') });
  }
}

/** Every envelope of a byte stream, in order; throws a ServiceError on a malformed or oversized one. */
export async function* readEnvelopes(source: AsyncIterable<Buffer>, limit: number): AsyncIterable<Envelope> {
  const reader = new EnvelopeReader(limit);
  for await (const chunk of source) {
    reader.push(chunk);
    for (let e = reader.next(); e !== undefined; e = reader.next()) yield e;
  }
  reader.finish();
}
