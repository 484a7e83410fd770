/**
 * An instance's HTTP/2 stream limit (SETTINGS_MAX_CONCURRENT_STREAMS, 100 on
 * fw's servers) is per connection, not per instance: when forwarded calls to
 * one instance outnumber it, the lean client opens more connections
 * (runtime/gateway/discovery/h2-session-pool.ts) instead of queueing calls
 * behind the open ones. The instance here allows 2 streams per connection
 * and answers nothing until 6 calls are open at once: with one connection
 * the calls would wait out their deadlines. Streams refused unprocessed
 * (REFUSED_STREAM: sent before the instance's SETTINGS said how many it
 * takes) are sent again.
 */
import * as grpc from '@grpc/grpc-js';
import { ProtocolGateway } from 'fw';
import { TestServiceDescriptor } from '../../interop/grpc/generated/src/proto/grpc/testing/test.fw';
import { H2UnaryChannel, type H2CallError } from '../../../runtime/gateway/discovery/h2-unary-channel';
import { HOST } from '../support/clients';
import { reply, startRawInstance, type RawHandler, type RawInstance } from './raw-h2-instance';

const LIMIT = 2;
const CALLS = 6;

/** Holds each call until `count` calls are open at once, then answers them all with their own request. */
function barrier(count: number): { handle: RawHandler; peak(): number } {
  const waiting: Array<() => void> = [];
  let open = 0;
  let peak = 0;
  const handle: RawHandler = async (stream, _call, messages) => {
    open++;
    peak = Math.max(peak, open);
    stream.once('close', () => open--);
    const all: Buffer[] = [];
    for await (const m of messages) all.push(m);
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length >= count) for (const release of waiting.splice(0)) release();
    });
    reply(stream, all);
  };
  return { handle, peak: () => peak };
}

describe('forwarding past an instance’s per-connection stream limit', () => {
  let raw: RawInstance;

  beforeAll(async () => {
    raw = await startRawInstance({ maxConcurrentStreams: LIMIT });
  });

  afterAll(async () => {
    await raw?.close();
  });

  beforeEach(() => {
    raw.calls.length = 0;
  });

  it('the lean channel opens another connection when every open one is full', async () => {
    const gate = barrier(CALLS);
    raw.handle = gate.handle;
    const channel = new H2UnaryChannel(`${HOST}:${raw.port}`);
    try {
      // The first call learns the limit from the instance's SETTINGS (before them, 100 is assumed).
      raw.handle = async (stream, _call, messages) => {
        for await (const _ of messages) void _;
        reply(stream, [Buffer.from('ok')]);
      };
      await new Promise<void>((resolve, reject) => channel.unary('/s.S/Warm', Buffer.from('w'), {}, Date.now() + 10_000, (e) => (e === null ? resolve() : reject(e))));
      raw.handle = gate.handle;
      const answers = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          new Promise<Buffer>((resolve, reject) => {
            channel.unary('/s.S/M', Buffer.from(`call ${i}`), {}, Date.now() + 10_000, (error: H2CallError | null, message) => (error === null ? resolve(message as Buffer) : reject(error)));
          }),
        ),
      );
      expect(answers.map(String)).toEqual(Array.from({ length: CALLS }, (_, i) => `call ${i}`));
      expect(gate.peak()).toBe(CALLS);
      expect(channel.connections).toBeGreaterThanOrEqual(CALLS / LIMIT);
    } finally {
      channel.close();
    }
  });

  it('long-lived streams holding every slot of a connection do not starve unary calls', async () => {
    const channel = new H2UnaryChannel(`${HOST}:${raw.port}`);
    const held: Array<() => void> = [];
    raw.handle = async (stream, call, messages) => {
      if (call.path.endsWith('/Watch')) {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        await new Promise<void>((resolve) => held.push(resolve));
        stream.end();
        return;
      }
      const all: Buffer[] = [];
      for await (const m of messages) all.push(m);
      reply(stream, all);
    };
    try {
      // Once the instance's SETTINGS are known, streams never go past its limit on any connection.
      await new Promise<void>((resolve, reject) => channel.unary('/s.S/Warm', Buffer.from('w'), {}, Date.now() + 10_000, (e) => (e === null ? resolve() : reject(e))));
      const watches = Array.from({ length: LIMIT * 2 }, () => channel.stream('/s.S/Watch', {}, undefined));
      for (const w of watches) w.end();
      const answer = await new Promise<Buffer>((resolve, reject) => {
        channel.unary('/s.S/M', Buffer.from('through'), {}, Date.now() + 10_000, (error, message) => (error === null ? resolve(message as Buffer) : reject(error)));
      });
      expect(String(answer)).toBe('through');
      for (const release of held.splice(0)) release();
      for (const w of watches) for await (const _ of w.messages()) void _;
    } finally {
      for (const release of held.splice(0)) release();
      channel.close();
    }
  });

  it('a gateway forwards more calls to one instance than one connection allows, all at once', async () => {
    const gate = barrier(CALLS);
    raw.handle = gate.handle;
    const gateway = new ProtocolGateway({ enableUDP: false });
    gateway.configureServiceDiscovery({ provider: 'static', services: { TestService: { descriptor: TestServiceDescriptor, instances: [{ host: HOST, port: raw.port }] } } });
    const { port } = await gateway.listen(0, HOST);
    const client = new grpc.Client(`${HOST}:${port as number}`, grpc.credentials.createInsecure());
    const id = (b: Buffer): Buffer => b;
    try {
      // SimpleRequest { response_size: i } as bytes, passed through to the instance and echoed back.
      const answers = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          new Promise<Buffer>((resolve, reject) => {
            client.makeUnaryRequest('/grpc.testing.TestService/UnaryCall', id, id, Buffer.from([0x10, i + 1]), new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (error, value) => (error === null ? resolve(value as Buffer) : reject(error)));
          }),
        ),
      );
      expect(answers).toEqual(Array.from({ length: CALLS }, (_, i) => Buffer.from([0x10, i + 1])));
      expect(gate.peak()).toBe(CALLS);
    } finally {
      client.close();
      await gateway.close();
    }
  });
});
