/**
 * A gRPC instance written on node:http2 that keeps every request message as
 * the bytes it received and answers with bytes the test chooses: it shows
 * whether the gateway passed messages through or decoded and re-encoded
 * them (non-canonical encodings and unknown fields survive only the former).
 */
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

/** One call as the instance saw it. */
export interface SeenCall {
  path: string;
  headers: http2.IncomingHttpHeaders;
  messages: Buffer[];
  /** The stream's reset code when it closed (8 = CANCEL), undefined while open. */
  closedWith: number | undefined;
}

/** Answers one call; `messages` yields the request messages as they arrive. */
export type RawHandler = (stream: http2.ServerHttp2Stream, call: SeenCall, messages: AsyncIterable<Buffer>) => void | Promise<void>;

export interface RawInstance {
  port: number;
  calls: SeenCall[];
  handle: RawHandler;
  close(): Promise<void>;
}

export function frame(message: Buffer): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

async function* deframe(stream: http2.ServerHttp2Stream, into: Buffer[]): AsyncGenerator<Buffer> {
  let pending = Buffer.alloc(0);
  for await (const chunk of stream) {
    pending = Buffer.concat([pending, chunk as Buffer]);
    while (pending.length >= 5 && pending.length >= 5 + pending.readUInt32BE(1)) {
      const size = pending.readUInt32BE(1);
      const message = Buffer.from(pending.subarray(5, 5 + size));
      pending = pending.subarray(5 + size);
      into.push(message);
      yield message;
    }
  }
}

/** Response headers, then `messages`, then an OK status with `trailers`. */
export function reply(stream: http2.ServerHttp2Stream, messages: Buffer[], headers: http2.OutgoingHttpHeaders = {}, trailers: http2.OutgoingHttpHeaders = {}): void {
  if (stream.destroyed) return;
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', ...headers }, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', ...trailers }));
  for (const m of messages) stream.write(frame(m));
  stream.end();
}

/** Echoes every request message back once all arrived (any call kind). */
export const echoAll: RawHandler = async (stream, _call, messages) => {
  const all: Buffer[] = [];
  for await (const m of messages) all.push(m);
  reply(stream, all);
};

export async function startRawInstance(): Promise<RawInstance> {
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => undefined);
  });
  const instance: RawInstance = {
    port: 0,
    calls: [],
    handle: echoAll,
    close: () =>
      new Promise((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    const call: SeenCall = { path: String(headers[':path']), headers, messages: [], closedWith: undefined };
    stream.once('close', () => (call.closedWith = stream.rstCode ?? 0));
    instance.calls.push(call);
    void Promise.resolve(instance.handle(stream, call, deframe(stream, call.messages))).catch(() => stream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  instance.port = (server.address() as AddressInfo).port;
  return instance;
}
