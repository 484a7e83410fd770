/**
 * The lean client's streaming calls (runtime/gateway/discovery/h2-stream-call.ts)
 * against a node:http2 instance that answers exactly as each case needs:
 * messages cut at any byte, answers the client must refuse with a clear
 * status, a connection lost mid-stream, the deadline, a reader that stops.
 */
import { status as GrpcCode } from '@grpc/grpc-js';
import { H2UnaryChannel, type H2CallError } from '../../../runtime/gateway/discovery/h2-unary-channel';
import { frame, reply, startRawInstance, type RawInstance } from './raw-h2-instance';
import { until } from './test-instances';

async function drain(messages: AsyncIterable<Buffer>): Promise<{ got: Buffer[]; error: H2CallError | undefined }> {
  const got: Buffer[] = [];
  try {
    for await (const m of messages) got.push(m);
    return { got, error: undefined };
  } catch (error) {
    return { got, error: error as H2CallError };
  }
}

describe('lean client streams', () => {
  let raw: RawInstance;
  let channel: H2UnaryChannel;

  beforeAll(async () => {
    raw = await startRawInstance();
    channel = new H2UnaryChannel(`127.0.0.1:${raw.port}`);
  });

  afterAll(async () => {
    channel?.close();
    await raw?.close();
  });

  beforeEach(() => {
    raw.calls.length = 0;
  });

  const start = (deadline?: number) => {
    const call = channel.stream('/s.S/M', { 'x-k': 'v' }, deadline);
    return call;
  };

  it('reassembles messages cut at every byte, and writes request messages with backpressure', async () => {
    const messages = [Buffer.from('one'), Buffer.alloc(0), Buffer.alloc(70_000, 7)];
    raw.handle = async (stream, _call, requests) => {
      for await (const _ of requests) void _;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'x-t': 'done' }));
      const all = Buffer.concat(messages.map(frame));
      for (let i = 0; i < 64; i++) stream.write(all.subarray(i, i + 1));
      stream.end(all.subarray(64));
    };
    const call = start();
    const sent = Array.from({ length: 12 }, (_, i) => Buffer.alloc(10_000, i));
    for (const m of sent) if (!call.write(m)) await call.drained();
    call.end();
    const { got, error } = await drain(call.messages());
    expect(error).toBeUndefined();
    expect(got).toEqual(messages);
    expect(raw.calls[0]?.messages).toEqual(sent);
    expect(raw.calls[0]?.headers['x-k']).toBe('v');
    expect(call.trailers?.['x-t']).toBe('done');
    expect(call.answered).toBe(true);
  });

  it.each([
    ['a compressed message', async (s: import('node:http2').ServerHttp2Stream) => {
      s.respond({ ':status': 200, 'content-type': 'application/grpc' });
      const f = frame(Buffer.from('x'));
      f[0] = 1;
      s.write(f);
    }, GrpcCode.INTERNAL, /Compressed/],
    ['an empty stream ending OK', async (s: import('node:http2').ServerHttp2Stream) => reply(s, []), GrpcCode.OK, undefined],
    ['HTTP 503', async (s: import('node:http2').ServerHttp2Stream) => {
      s.respond({ ':status': 503 });
      s.end();
    }, GrpcCode.UNAVAILABLE, /503/],
    ['a trailers-only error', async (s: import('node:http2').ServerHttp2Stream) => {
      s.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5', 'grpc-message': 'nope' }, { endStream: true });
    }, GrpcCode.NOT_FOUND, /nope/],
    ['a message over 4 MiB', async (s: import('node:http2').ServerHttp2Stream) => {
      s.respond({ ':status': 200, 'content-type': 'application/grpc' });
      const header = Buffer.alloc(5);
      header.writeUInt32BE(5 * 1024 * 1024, 1);
      s.write(header);
    }, GrpcCode.RESOURCE_EXHAUSTED, /larger than max/],
  ])('%s: its status, never a hang', async (_name, answer, code, message) => {
    raw.handle = (stream) => answer(stream);
    const call = start(Date.now() + 5000);
    call.end();
    const { error } = await drain(call.messages());
    if (code === GrpcCode.OK) {
      expect(error).toBeUndefined();
      return;
    }
    expect(error?.code).toBe(code);
    expect(error?.message).toMatch(message as RegExp);
  });

  it('a body that ends inside a message is INTERNAL', async () => {
    raw.handle = async (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frame(Buffer.from('whole')).subarray(0, 7));
    };
    const call = start();
    call.end();
    const { error } = await drain(call.messages());
    expect(error?.code).toBe(GrpcCode.INTERNAL);
    expect(error?.message).toMatch(/middle of a message/);
  });

  it('the connection lost mid-stream: what arrived, then UNAVAILABLE', async () => {
    raw.handle = async (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.write(frame(Buffer.from('first')), () => setTimeout(() => stream.session?.destroy(), 20));
    };
    const call = start();
    call.end();
    const { got, error } = await drain(call.messages());
    expect(got).toEqual([Buffer.from('first')]);
    expect(error?.code).toBe(GrpcCode.UNAVAILABLE);
  });

  it('the deadline ends the call DEADLINE_EXCEEDED and resets the stream', async () => {
    raw.handle = () => undefined;
    const call = start(Date.now() + 300);
    const { error } = await drain(call.messages());
    expect(error?.code).toBe(GrpcCode.DEADLINE_EXCEEDED);
    await until(() => raw.calls[0]?.closedWith !== undefined, 5000);
    expect(raw.calls[0]?.closedWith).toBe(8);
  });

  it('a reader that stops early cancels the call at the instance', async () => {
    raw.handle = async (stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.write(frame(Buffer.from('a')));
      stream.write(frame(Buffer.from('b')));
    };
    const call = start();
    call.end();
    for await (const m of call.messages()) {
      expect(m).toEqual(Buffer.from('a'));
      break;
    }
    await until(() => raw.calls[0]?.closedWith !== undefined, 5000);
    expect(raw.calls[0]?.closedWith).toBe(8);
  });

  it('a closed channel fails new calls UNAVAILABLE at once', async () => {
    const closed = new H2UnaryChannel(`127.0.0.1:${raw.port}`);
    closed.close();
    const { error } = await drain(closed.stream('/s.S/M', {}, undefined).messages());
    expect(error?.code).toBe(GrpcCode.UNAVAILABLE);
  });
});
