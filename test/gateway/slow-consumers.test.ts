/**
 * Many WebSocket clients that open a fast server stream and never read: each
 * connection is bounded by its own cap, and all of them together by the
 * gateway-wide `maxBufferedOutputBytes`: past it the slowest are cut (close
 * 1008 "slow consumer"), the total stays under the cap, and a client that
 * reads keeps streaming.
 */
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { encodeFrame, FrameType, ProtocolGateway } from 'fw';
import { HOST } from './support/clients';

const CAP = 6 << 20;
const CLIENTS = 40;
const ITEM = 'x'.repeat(32 << 10);

/** A gateway with the cap and one fast server stream: 4,000 items of 32 KiB (bounded, so nothing runs forever). */
async function firehoseGateway(options: ConstructorParameters<typeof ProtocolGateway>[0]): Promise<{ gateway: ProtocolGateway; port: number }> {
  const gateway = new ProtocolGateway({ enableUDP: false, enableGRPC: false, maxBufferedOutputBytes: CAP, ...options });
  gateway.addService('Firehose', {
    stream: async function* () {
      for (let i = 0; i < 4000; i++) yield { i, pad: ITEM };
    },
  });
  return { gateway, port: (await gateway.listen(0, HOST)).port as number };
}

describe('stalled WebSocket clients against the gateway-wide output cap', () => {
  let gateway: ProtocolGateway;
  let port: number;
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    ({ gateway, port } = await firehoseGateway({ enableTCP: false }));
    gateway.configureMonitoring({ metrics: { enabled: true } });
  });

  afterAll(async () => {
    for (const ws of sockets) ws.terminate();
    await gateway.close();
  });

  /** A client that asks for the stream and then stops reading its socket. */
  function stalledClient(): Promise<{ ws: WebSocket; socket: () => Socket | undefined; closed: Promise<{ code: number; reason: string }> }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://${HOST}:${port}/ws`);
      sockets.push(ws);
      let socket: Socket | undefined;
      ws.on('upgrade', (res) => (socket = res.socket as Socket));
      const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
      ws.on('error', () => undefined);
      ws.once('open', () => {
        ws.send(JSON.stringify({ id: 1, service: 'Firehose', method: 'stream', data: {} }));
        // Read the first reply, then never again.
        ws.once('message', () => socket?.pause());
        resolve({ ws, socket: () => socket, closed });
      });
      ws.once('unexpected-response', () => reject(new Error('upgrade refused')));
    });
  }

  test('the slowest are cut with a clear reason, the total stays under the cap, a reading client streams on', async () => {
    const stalled = await Promise.all(Array.from({ length: CLIENTS }, () => stalledClient()));
    // A client that reads everything.
    let received = 0;
    const reader = new WebSocket(`ws://${HOST}:${port}/ws`);
    sockets.push(reader);
    const readerDone = new Promise<void>((resolve) => {
      reader.on('message', (m) => {
        const msg = JSON.parse(m.toString()) as { type: string };
        if (msg.type === 'stream') received++;
        if (msg.type === 'stream_end') resolve();
      });
    });
    await new Promise<void>((r) => reader.once('open', () => r()));
    reader.send(JSON.stringify({ id: 7, service: 'Firehose', method: 'stream', data: {} }));

    // Sample the gateway-wide total until cuts have happened (bounded wait).
    let peak = 0;
    for (let i = 0; i < 200 && gateway.bufferedOutput().cut === 0; i++) {
      peak = Math.max(peak, gateway.bufferedOutput().totalBytes);
      await new Promise((r) => setTimeout(r, 50));
    }
    for (let i = 0; i < 20; i++) {
      peak = Math.max(peak, gateway.bufferedOutput().totalBytes);
      await new Promise((r) => setTimeout(r, 50));
    }
    const { cut, limitBytes } = gateway.bufferedOutput();
    expect(limitBytes).toBe(CAP);
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThan(CLIENTS);
    // Never above the cap by more than one message in flight per connection.
    expect(peak).toBeLessThanOrEqual(CAP + CLIENTS * (ITEM.length + 100));

    // Cut clients see their connection end once they read again (1008 "slow consumer" when the close frame got through).
    const closes: Array<{ code: number; reason: string }> = [];
    for (const c of stalled) {
      void c.closed.then((e) => closes.push(e));
      c.socket()?.resume();
    }
    for (let i = 0; i < 400 && closes.length < cut; i++) await new Promise((r) => setTimeout(r, 50));
    expect(closes.length).toBeGreaterThanOrEqual(cut);
    expect(closes.every((c) => c.code === 1008 || c.code === 1006)).toBe(true);

    await readerDone;
    expect(received).toBe(4000);
    const metrics = await (await fetch(`http://${HOST}:${port}/metrics`)).text();
    expect(metrics).toMatch(/fw_gateway_slow_consumers_cut_total\{protocol="websocket"\} [1-9]/);
  }, 60_000);
});

describe('stalled TCP frame clients against the gateway-wide output cap', () => {
  let gateway: ProtocolGateway;
  let port: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    ({ gateway, port } = await firehoseGateway({ enableWebSocket: false }));
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await gateway.close();
  });

  test('the slowest are cut; the total stays under the cap', async () => {
    const request = encodeFrame(FrameType.Request, { id: 1, service: 'Firehose', method: 'stream', data: {} });
    let closed = 0;
    for (let i = 0; i < CLIENTS; i++) {
      const socket = connect({ host: HOST, port });
      sockets.push(socket);
      socket.on('error', () => undefined);
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write(request);
      // Read nothing: the gateway's replies pile up.
      socket.pause();
      socket.on('data', () => undefined);
      socket.once('close', () => closed++);
    }
    let peak = 0;
    for (let i = 0; i < 200 && gateway.bufferedOutput().cut === 0; i++) {
      peak = Math.max(peak, gateway.bufferedOutput().totalBytes);
      await new Promise((r) => setTimeout(r, 50));
    }
    const { cut } = gateway.bufferedOutput();
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThan(CLIENTS);
    expect(peak).toBeLessThanOrEqual(CAP + CLIENTS * (ITEM.length + 100));
    // Cut clients see their connection end once they read again.
    for (const s of sockets) s.resume();
    for (let i = 0; i < 400 && closed < cut; i++) await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBeGreaterThanOrEqual(cut);
  }, 60_000);
});
