/**
 * The conformance adapters of the gateway's envelope and frame protocols:
 * WebSocket json and msgpack envelopes, WebSocket binary and TCP frames
 * (one frame layout, two carriers), and UDP datagrams.
 */
import { decode as msgpackDecode, encode as msgpackEncode } from '@msgpack/msgpack';
import { encodeFrame, FrameType } from 'fw';
import { parseFrames, TcpFrameClient, udpCall, WsClient, type FrameReply } from '../gateway/support/clients';
import { BAD_JSON, MALFORMED, nextId, sleep, streamItems, TIMEOUT, type CallKind, type Connection, type Json, type Outcome } from './adapter-types';

const streamsIn = (kind: CallKind): boolean => kind === 'client' || kind === 'bidi';

/** WebSocket envelopes (`{id, service, method, data}`, client-stream items `{id, type: 'stream'}`), JSON text or MessagePack. */
export async function webSocket(base: string, format: 'json' | 'msgpack'): Promise<Connection> {
  const client = await WsClient.connect(`${base.replace('http', 'ws')}/ws`, format === 'json' ? {} : { protocol: 'fw.msgpack', decode: (d) => msgpackDecode(d) });
  const send = (message: Json): void => client.send(format === 'json' ? JSON.stringify(message) : Buffer.from(msgpackEncode(message)));
  /** Sends the call; a client stream's items follow the request, and its end unless `leaveOpen`. */
  const start = (id: string, service: string, method: string, kind: CallKind, input: unknown, timeoutMs?: number, leaveOpen = false): void => {
    const request: Json = { id, service, method, data: streamsIn(kind) ? null : input };
    if (timeoutMs !== undefined) request.timeout = timeoutMs;
    send(request);
    if (!streamsIn(kind)) return;
    for (const data of streamItems(input)) send({ id, type: 'stream', data });
    if (!leaveOpen) send({ id, type: 'stream_end' });
  };
  return {
    async call(service, method, kind, input, timeoutMs) {
      const id = nextId();
      if (input === MALFORMED) client.send(format === 'json' ? BAD_JSON : Buffer.from([0xc1]));
      else start(id, service, method, kind, input, timeoutMs);
      // A message that does not decode has no id to answer under.
      const mine = (ms: unknown[]): Json[] => (ms as Json[]).filter((m) => m.id === (input === MALFORMED ? undefined : id));
      const all = mine(await client.until((ms) => mine(ms).some((m) => m.type === 'response' || m.type === 'error' || m.type === 'stream_end'), TIMEOUT));
      const items = all.filter((m) => m.type === 'response' || m.type === 'stream').map((m) => m.data);
      const error = all.find((m) => m.type === 'error')?.error as Json | undefined;
      return error === undefined ? { items } : { items, error: { code: error.code as string, message: error.message as string } };
    },
    async cancel(service, method, kind, input, afterMs) {
      const id = nextId();
      start(id, service, method, kind, input, undefined, true);
      await sleep(afterMs);
      send({ id, type: 'cancel' });
    },
    close: () => client.close(),
  };
}

/** A frame (version 1, type, u32 length) around `payload` as given: no JSON encoding. */
function rawFrame(type: number, payload: string): Buffer {
  const body = Buffer.from(payload);
  const header = Buffer.alloc(6);
  header[0] = 1;
  header[1] = type;
  header.writeUInt32BE(body.length, 2);
  return Buffer.concat([header, body]);
}

function frameOutcome(frames: FrameReply[]): Outcome {
  const items = frames.filter((f) => f.type === FrameType.Response || f.type === FrameType.StreamItem).map((f) => f.payload.data);
  const error = frames.find((f) => f.type === FrameType.Error)?.payload.error as Json | undefined;
  return error === undefined ? { items } : { items, error: { code: error.code as string, message: error.message as string } };
}

/** What carries frames: a TCP connection, or a WebSocket with one frame per binary message. */
interface FrameChannel {
  send(type: number, payload: unknown): void;
  raw(bytes: Buffer): void;
  until(predicate: (frames: FrameReply[]) => boolean, ms?: number): Promise<FrameReply[]>;
  readonly frames: readonly FrameReply[];
  close(): void;
}

/** The frame protocol over `channel`: requests, client-stream items (type 6) and end (type 7), cancel (type 8). */
function frames(channel: FrameChannel): Connection {
  const start = (id: string, service: string, method: string, kind: CallKind, input: unknown, timeoutMs?: number, leaveOpen = false): void => {
    const request: Json = { id, service, method, data: streamsIn(kind) ? null : input };
    if (timeoutMs !== undefined) request.timeout = timeoutMs;
    channel.send(FrameType.Request, request);
    if (!streamsIn(kind)) return;
    for (const data of streamItems(input)) channel.send(FrameType.ClientStreamItem, { id, data });
    if (!leaveOpen) channel.send(FrameType.ClientStreamEnd, { id });
  };
  return {
    async call(service, method, kind, input, timeoutMs) {
      if (input === MALFORMED) {
        const before = channel.frames.length;
        channel.raw(rawFrame(FrameType.Request, BAD_JSON));
        return frameOutcome((await channel.until((fs) => fs.length > before, TIMEOUT)).slice(before));
      }
      const id = nextId();
      start(id, service, method, kind, input, timeoutMs);
      const mine = (fs: readonly FrameReply[]): FrameReply[] => fs.filter((f) => f.payload.id === id);
      const done = (f: FrameReply): boolean => f.type === FrameType.Response || f.type === FrameType.Error || f.type === FrameType.StreamEnd;
      return frameOutcome(mine(await channel.until((fs) => mine(fs).some(done), TIMEOUT)));
    },
    async cancel(service, method, kind, input, afterMs) {
      const id = nextId();
      start(id, service, method, kind, input, undefined, true);
      await sleep(afterMs);
      channel.send(FrameType.Cancel, { id });
    },
    close: () => channel.close(),
  };
}

/** TCP: length-prefixed frames, one connection for every call. */
export async function tcp(port: number): Promise<Connection> {
  return frames(await TcpFrameClient.connect(port));
}

/** WebSocket `binary` (subprotocol `fw.binary`): each binary message is one frame. */
export async function webSocketBinary(base: string): Promise<Connection> {
  const client = await WsClient.connect(`${base.replace('http', 'ws')}/ws`, { protocol: 'fw.binary', decode: (d) => parseFrames(d).frames[0] });
  return frames({
    send: (type, payload) => client.send(encodeFrame(type, payload)),
    raw: (bytes) => client.send(bytes),
    until: async (predicate, ms) => (await client.until((ms2) => predicate(ms2 as FrameReply[]), ms)) as FrameReply[],
    get frames() {
      return client.messages as FrameReply[];
    },
    close: () => client.close(),
  });
}

/** UDP: one request datagram, one reply datagram; unary only. */
export function udp(port: number): Connection {
  return {
    call: async (service, method, _kind, input, timeoutMs) =>
      frameOutcome([await udpCall(port, input === MALFORMED ? rawFrame(FrameType.Request, BAD_JSON) : encodeFrame(FrameType.Request, { id: nextId(), service, method, data: input, timeout: timeoutMs }), TIMEOUT)]),
    cancel: () => Promise.reject(new Error('UDP has no cancel')),
    close: () => undefined,
  };
}
