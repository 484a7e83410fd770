/**
 * The binary frame shared by UDP datagrams, TCP streams and WebSocket `binary`
 * messages (docs/protocols.md): `version u8 = 1 | type u8 | length u32 BE |
 * JSON payload`. Decoding never throws anything but a ServiceError, so a bad
 * frame always becomes an error reply.
 */
// Node's global Buffer is a getter on globalThis, called on every use; the import is a plain binding.
import { Buffer } from 'node:buffer';
import { jsonTextTooDeep, TOO_DEEP_MESSAGE } from '../../core/json-depth';
import { hasPrototypeKeys, PROTOTYPE_KEY_MESSAGE, textMayHavePrototypeKeys } from '../../core/prototype-keys';
import { PrefixedFrameReader } from '../../core/prefixed-frame-reader';
import { catalogueError, type ServiceError } from '../errors';

/** The only frame version; replies carry it too. */
export const FRAME_VERSION = 1;
/** version + type + u32 length. */
export const FRAME_HEADER_BYTES = 6;

/** Frame types. */
export const FrameType = {
  Request: 1,
  Response: 2,
  Error: 3,
  StreamItem: 4,
  StreamEnd: 5,
  ClientStreamItem: 6,
  ClientStreamEnd: 7,
  /** `{id}`: the client cancels that call (TCP, WebSocket binary). */
  Cancel: 8,
} as const;
/** One of the FrameType numbers. */
export type FrameTypeValue = (typeof FrameType)[keyof typeof FrameType];

/** A decoded frame: its type byte and JSON payload. */
export interface Frame {
  type: number;
  payload: Record<string, unknown>;
}

/** Encodes one frame with a JSON payload. */
export function encodeFrame(type: number, payload: unknown): Buffer {
  return encodeJsonFrame(type, JSON.stringify(payload));
}

/** Encodes one frame whose payload is already JSON text. */
export function encodeJsonFrame(type: number, json: string): Buffer {
  const length = Buffer.byteLength(json);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame[0] = FRAME_VERSION;
  frame[1] = type;
  frame.writeUInt32BE(length, 2);
  frame.write(json, FRAME_HEADER_BYTES, 'utf8');
  return frame;
}

/** The error for a frame that breaks the layout. */
export function malformed(message: string): ServiceError {
  return catalogueError('MALFORMED_FRAME', message);
}

/** Parses the JSON payload; it must be a JSON object. */
export function parsePayload(bytes: Buffer): Record<string, unknown> {
  return parsePayloadText(bytes.toString('utf8'));
}

function parsePayloadText(text: string): Record<string, unknown> {
  if (jsonTextTooDeep(text)) throw catalogueError('INVALID_ARGUMENT', TOO_DEEP_MESSAGE);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed('Frame payload is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw malformed('Frame payload must be a JSON object');
  if (textMayHavePrototypeKeys(text) && hasPrototypeKeys(value)) throw catalogueError('INVALID_JSON', PROTOTYPE_KEY_MESSAGE);
  return value as Record<string, unknown>;
}

/** Checks a frame header; returns the payload length. */
export function readHeader(buffer: Buffer, offset: number, maxPayload: number): number {
  if (buffer[offset] !== FRAME_VERSION) throw malformed(`Unsupported frame version ${buffer[offset] ?? 'missing'}`);
  const length = buffer.readUInt32BE(offset + 2);
  if (length > maxPayload) throw catalogueError('FRAME_TOO_LARGE', `Frame payload of ${length} bytes exceeds the limit of ${maxPayload}`, { limit: maxPayload });
  return length;
}

/** Decodes exactly one frame occupying the whole buffer (UDP datagram, WebSocket binary message). */
export function decodeFrame(buffer: Buffer, maxPayload: number): Frame {
  if (buffer.length < FRAME_HEADER_BYTES) throw malformed(`Frame shorter than its ${FRAME_HEADER_BYTES}-byte header`);
  const length = readHeader(buffer, 0, maxPayload);
  if (buffer.length < FRAME_HEADER_BYTES + length) throw malformed(`Frame truncated: header says ${length} payload bytes, ${buffer.length - FRAME_HEADER_BYTES} present`);
  if (buffer.length > FRAME_HEADER_BYTES + length) throw malformed('Trailing bytes after the frame payload');
  const type = buffer[1] as number;
  // Decoding from an offset skips the subarray view a payload Buffer would cost.
  return { type, payload: parsePayloadText(buffer.toString('utf8', FRAME_HEADER_BYTES, buffer.length)) };
}

/** Frame type of a payload that was not valid JSON (`payload.error` holds the ServiceError). */
export const BAD_PAYLOAD = -1;
/** Frame type reporting a bad header: framing is lost, the stream must be closed. */
export const BAD_HEADER = -2;

/**
 * Incremental decoder for a byte stream (TCP). Holds at most one unfinished
 * frame (header + `maxPayload`), gathered in bounded blocks however small the
 * chunks; `push` returns the complete frames so far. A bad header ends the
 * list with a BAD_HEADER frame, after which the reader ignores all input (the
 * stream must be closed).
 */
export class FrameReader {
  readonly #frames: PrefixedFrameReader;
  #out: Frame[] = [];
  #failed = false;
  readonly #sink = (header: Buffer, offset: number, payload: Buffer): void => {
    const type = header[offset + 1] as number;
    try {
      this.#out.push({ type, payload: parsePayloadText(payload.toString('utf8')) });
    } catch (e) {
      // A bad payload in a well-framed message: report it and keep the stream.
      this.#out.push({ type: BAD_PAYLOAD, payload: { error: e } });
    }
  };

  constructor(maxPayload: number) {
    this.#frames = new PrefixedFrameReader(FRAME_HEADER_BYTES, (bytes, offset) => readHeader(bytes, offset, maxPayload));
  }

  /** Bytes held waiting for the rest of a frame. */
  get buffered(): number {
    return this.#frames.held;
  }

  push(chunk: Buffer): Frame[] {
    if (this.#failed) return [];
    const frames: Frame[] = (this.#out = []);
    try {
      this.#frames.push(chunk, this.#sink);
    } catch (e) {
      this.#failed = true;
      frames.push({ type: BAD_HEADER, payload: { error: e } });
    }
    return frames;
  }
}
