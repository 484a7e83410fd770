/**
 * Fuzz: 10,000 random and mutated inputs per transport. Every input gets an
 * answer (an error reply, or a response when the mutation happened to stay
 * valid), the gateway keeps serving, and the heap after a full GC is about
 * where it was before.
 */
import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import * as grpc from '@grpc/grpc-js';
import { encodeFrame, FrameType, ProtocolGateway } from 'fw';
import { prng } from '../support/prng';
import { HOST, parseFrames, TcpFrameClient, udpCall, withTimeout, WsClient } from './support/clients';

v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

const N = 10_000;

function randomBytes(rand: () => number, max: number): Buffer {
  const n = Math.floor(rand() * max);
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

const SAMPLES = [
  { id: 'a', service: 'Echo', method: 'echo', data: { x: 1, s: 'text', arr: [1, 2, { y: null }] } },
  { id: 7, service: 'Echo', method: 'nope', data: {} },
  { id: 'b', service: 'Nope', method: 'echo' },
  { id: 'c', service: 'Echo', method: 'echo', data: 'str', auth: { token: 'abc' } },
];

/** A JSON text mutated by byte flips, truncation, insertion or a type change. */
function mutatedJson(rand: () => number): Buffer {
  const base = Buffer.from(JSON.stringify(SAMPLES[Math.floor(rand() * SAMPLES.length)]));
  const kind = Math.floor(rand() * 4);
  if (kind === 0) {
    const b = Buffer.from(base);
    for (let i = 0; i < 1 + Math.floor(rand() * 4); i++) b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
    return b;
  }
  if (kind === 1) return base.subarray(0, Math.floor(rand() * base.length));
  if (kind === 2) return Buffer.concat([base, randomBytes(rand, 16)]);
  return randomBytes(rand, 64);
}

function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / (1 << 20);
}

describe('gateway fuzz', () => {
  let gateway: ProtocolGateway;
  let port: number;
  let before: number;

  beforeAll(async () => {
    // UDP's per-source rate limit would silence most of this one sender's datagrams.
    gateway = new ProtocolGateway({ tcp: { idleTimeout: 10_000 }, udp: { rateLimit: false } });
    gateway.addService('Echo', { echo: async (r: unknown) => r });
    port = (await gateway.listen(0, HOST)).port as number;
    before = heapMb();
  });

  afterAll(async () => {
    await gateway?.close();
  });

  async function stillServes(): Promise<void> {
    const reply = await udpCall(port, encodeFrame(FrameType.Request, { id: 'ok', service: 'Echo', method: 'echo', data: 1 }));
    expect(reply).toMatchObject({ type: FrameType.Response, payload: { data: 1 } });
  }

  it('TCP: 10,000 well-framed random/mutated payloads on one connection, plus header mutations on fresh ones', async () => {
    const rand = prng(1);
    const tcp = await TcpFrameClient.connect(port);
    const framed = N - 300;
    for (let i = 0; i < framed; i++) {
      const payload = mutatedJson(rand);
      const drawn = rand() < 0.8 ? FrameType.Request : Math.floor(rand() * 10);
      // Every frame here must get exactly one reply; a cancel (8) is answered by silence and may silence the call it names (call-cancellation.test.ts covers it).
      const type = drawn === FrameType.Cancel ? 9 : drawn;
      const header = Buffer.alloc(6);
      header[0] = 1;
      header[1] = type;
      header.writeUInt32BE(payload.length, 2);
      tcp.raw(Buffer.concat([header, payload]));
      if (i % 500 === 499) await tcp.until((fs) => fs.length >= i + 1, 10_000);
    }
    await tcp.until((fs) => fs.length >= framed, 20_000);
    expect(tcp.frames.length).toBe(framed);
    expect(tcp.frames.every((f) => f.type === FrameType.Response || f.type === FrameType.Error)).toBe(true);
    tcp.close();

    for (let i = 0; i < 300; i++) {
      const valid = encodeFrame(FrameType.Request, SAMPLES[0]);
      const b = Buffer.from(valid);
      b[Math.floor(rand() * 6)] = Math.floor(rand() * 256);
      const socket = net.connect({ port, host: HOST });
      socket.on('error', () => undefined);
      const bytes: Buffer[] = [];
      socket.on('data', (d: Buffer) => bytes.push(d));
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write(b[0] === 1 ? b : Buffer.concat([Buffer.from([1]), b.subarray(1)])); // keep byte 0 so the mux routes it to TCP
      socket.end(); // a lying length must not leave the server waiting for bytes that never come
      await withTimeout(new Promise<void>((r) => {
        const done = (): void => r();
        socket.once('close', done);
        socket.on('data', () => {
          if (parseFrames(Buffer.concat(bytes)).frames.length > 0) done();
        });
      }), 15_000, 'tcp reply');
      socket.destroy();
    }
    await stillServes();
  }, 120_000);

  it('UDP: 10,000 random and mutated datagrams, each answered unless the answer would outgrow it', async () => {
    const rand = prng(2);
    const socket = (await import('node:dgram')).createSocket('udp4');
    await new Promise<void>((r) => socket.bind(0, HOST, () => r()));
    let replies = 0;
    let waiter: (() => void) | undefined;
    socket.on('message', () => {
      replies++;
      waiter?.();
    });
    // Well-formed requests are always answered; garbage only when even the bare error code fits in its size.
    let expected = 0;
    const WINDOW = 32;
    for (let sent = 0; sent < N; ) {
      const target = Math.min(N, sent + WINDOW);
      for (; sent < target; ) {
        const r = rand();
        const wellFormed = r >= 0.3 && r < 0.6;
        const datagram = r < 0.3 ? randomBytes(rand, 200) : wellFormed ? encodeFrame(FrameType.Request, SAMPLES[Math.floor(rand() * 4)]) : (() => {
          const payload = mutatedJson(rand);
          const h = Buffer.alloc(6);
          h[0] = rand() < 0.9 ? 1 : Math.floor(rand() * 256);
          h[1] = rand() < 0.8 ? 1 : Math.floor(rand() * 256);
          h.writeUInt32BE(rand() < 0.8 ? payload.length : Math.floor(rand() * 2 ** 32), 2);
          return Buffer.concat([h, payload]);
        })();
        const bytes = datagram.length === 0 ? Buffer.from([0]) : datagram;
        if (wellFormed || bytes.length >= 48) expected++;
        socket.send(bytes, port, HOST);
        sent++;
      }
      const deadline = Date.now() + 2000;
      while (replies < expected && Date.now() < deadline) await new Promise<void>((r) => {
        waiter = r;
        setTimeout(r, 50);
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    socket.close();
    // Loopback UDP may drop a datagram under load; nearly all must be answered.
    expect(replies).toBeGreaterThanOrEqual(expected * 0.99);
    expect(replies).toBeLessThanOrEqual(N);
    await stillServes();
  }, 120_000);

  it('WebSocket: 10,000 random and mutated messages, each answered, connection kept', async () => {
    const rand = prng(3);
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    for (let i = 0; i < N; i++) {
      const r = rand();
      ws.send(r < 0.5 ? mutatedJson(rand).toString('utf8') : r < 0.7 ? randomBytes(rand, 100) : JSON.stringify({ ...SAMPLES[Math.floor(rand() * 4)], type: ['stream', 'stream_end', undefined, 'x'][Math.floor(rand() * 4)] }));
      if (i % 500 === 499) await ws.until((ms) => ms.length >= i + 1, 10_000);
    }
    await ws.until((ms) => ms.length >= N, 20_000);
    expect(ws.messages.length).toBe(N);
    expect(ws.closeCode).toBeUndefined();
    ws.close();
    await stillServes();
  }, 120_000);

  it('HTTP: 10,000 random and mutated bodies, each answered with JSON', async () => {
    const rand = prng(4);
    const statuses = new Map<number, number>();
    const paths = ['/api/Echo/echo', '/api/Echo/nope', '/api/X/y', '/api/Echo', '/'];
    const one = async (): Promise<void> => {
      const res = await fetch(`http://${HOST}:${port}${paths[Math.floor(rand() * paths.length)] ?? '/'}`, {
        method: 'POST',
        headers: { 'content-type': rand() < 0.8 ? 'application/json' : 'text/plain' },
        body: new Uint8Array(mutatedJson(rand)),
        signal: AbortSignal.timeout(10_000),
      });
      await res.json();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    };
    for (let i = 0; i < N; i += 50) await Promise.all(Array.from({ length: 50 }, one));
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(N);
    // 415: the text/plain bodies on a bound route, refused before they are read.
    expect([...statuses.keys()].every((s) => [200, 400, 404, 415].includes(s))).toBe(true);
    await stillServes();
  }, 120_000);

  it('gRPC: 10,000 random message bodies, each answered with a status', async () => {
    const rand = prng(5);
    const identity = (b: Buffer): Buffer => b;
    const Ctor = grpc.makeGenericClientConstructor({
      echo: { path: '/Echo/echo', requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity },
    }, 'Echo');
    const client = new Ctor(`${HOST}:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & { echo: (req: Buffer, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null) => void) => void };
    const codes = new Map<number, number>();
    const one = (): Promise<void> =>
      new Promise((resolve) => {
        client.echo(rand() < 0.5 ? mutatedJson(rand) : randomBytes(rand, 100), { deadline: Date.now() + 10_000 }, (err) => {
          const code = err === null ? 0 : err.code;
          codes.set(code, (codes.get(code) ?? 0) + 1);
          resolve();
        });
      });
    for (let i = 0; i < N; i += 100) await Promise.all(Array.from({ length: 100 }, one));
    client.close();
    expect([...codes.values()].reduce((a, b) => a + b, 0)).toBe(N);
    // Undecodable JSON is the caller's fault (INVALID_ARGUMENT); a handler failing on odd input is INTERNAL.
    expect([...codes.keys()].every((c) => c === grpc.status.OK || c === grpc.status.INVALID_ARGUMENT || c === grpc.status.INTERNAL)).toBe(true);
    await stillServes();
  }, 120_000);

  it('does not leak: heap after GC is within a generous margin of the start', async () => {
    await new Promise((r) => setTimeout(r, 200));
    const after = heapMb();
    expect(after - before).toBeLessThan(40);
  });
});
