/**
 * A bare HTTP/2 connection written frame by frame, for what Node's own client
 * never sends: one gRPC request whose body comes as one-byte DATA frames
 * (Node's client joins small writes into larger frames). It answers the
 * server's SETTINGS and PINGs and records the DATA received on stream 1.
 */
import net from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
const DATA = 0x0;
const HEADERS = 0x1;
const SETTINGS = 0x4;
const PING = 0x6;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const ACK = 0x1;

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}

/** HPACK "literal header field without indexing, new name", no Huffman coding (names and values under 127 bytes). */
function literal(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x00, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
}

/** What came back on stream 1. */
export interface RawH2Outcome {
  /** Bytes of DATA frames on stream 1. */
  dataBytes: number;
  /** True once the server ended stream 1 (or the connection). */
  ended: boolean;
}

/**
 * Sends one request to `path` on a new connection to `port`, its `body` as
 * one DATA frame per byte (the body must fit the default 65,535-byte flow
 * control window), and resolves when the server ends the stream or the
 * connection, or after `timeoutMs`.
 */
export function oneByteDataFrames(port: number, path: string, contentType: string, body: Buffer, timeoutMs: number): Promise<RawH2Outcome> {
  if (body.length > 65_535) throw new RangeError('the body must fit the initial flow-control window');
  const outcome: RawH2Outcome = { dataBytes: 0, ended: false };
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(finish, timeoutMs);
    let pending = Buffer.alloc(0);
    socket.on('error', finish);
    socket.on('close', () => {
      outcome.ended = true;
      finish();
    });
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 9) {
        const length = pending.readUIntBE(0, 3);
        if (pending.length < 9 + length) break;
        const type = pending[3] as number;
        const flags = pending[4] as number;
        const stream = pending.readUInt32BE(5) & 0x7fffffff;
        const payload = pending.subarray(9, 9 + length);
        pending = pending.subarray(9 + length);
        if (type === SETTINGS && (flags & ACK) === 0) socket.write(frame(SETTINGS, ACK, 0, Buffer.alloc(0)));
        else if (type === PING && (flags & ACK) === 0) socket.write(frame(PING, ACK, 0, Buffer.from(payload)));
        else if (stream === 1 && type === DATA) outcome.dataBytes += length;
        if (stream === 1 && (type === DATA || type === HEADERS) && (flags & END_STREAM) !== 0) {
          outcome.ended = true;
          finish();
          return;
        }
      }
    });
    const headers = Buffer.concat([
      literal(':method', 'POST'),
      literal(':scheme', 'http'),
      literal(':path', path),
      literal(':authority', 'localhost'),
      literal('content-type', contentType),
      literal('te', 'trailers'),
    ]);
    const frames: Buffer[] = [PREFACE, frame(SETTINGS, 0, 0, Buffer.alloc(0)), frame(HEADERS, END_HEADERS, 1, headers)];
    for (let i = 0; i < body.length; i++) frames.push(frame(DATA, i === body.length - 1 ? END_STREAM : 0, 1, body.subarray(i, i + 1)));
    socket.write(Buffer.concat(frames));
  });
}
