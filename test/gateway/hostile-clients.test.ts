/**
 * What a hostile client tries, refused over real sockets (docs/security.md):
 * a TCP frame trickled byte by byte, partial frames from many connections,
 * a half-closed TCP client (must still get its replies), UDP floods from one
 * address, JSON nested past 100 levels on every JSON transport, CORS and JWT
 * settings that cannot be safe, tokens without `exp` or issued in the future,
 * and an Authorization header without the Bearer scheme.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { encode as msgpackEncode, decode as msgpackDecode } from '@msgpack/msgpack';
import { SignJWT } from 'jose';
import { encodeFrame, FrameType, ProtocolGateway, server } from 'fw';
import { cors, json } from 'fw/middleware';
import { grpcJsonClient, grpcUnary, HOST, parseFrames, TcpFrameClient, udpCall, withTimeout, WsClient } from './support/clients';
import { startedGateways } from './support/started-gateways';

const start = startedGateways();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `{a: {a: … {} }}`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('TCP slow senders', () => {
  it('closes a connection whose started frame is not complete within frameTimeout, even while bytes trickle in', async () => {
    const g = new ProtocolGateway({ enableUDP: false, tcp: { frameTimeout: 300 } });
    g.addService('Echo', { echo: async (r: unknown) => r });
    const { port } = await start(g);
    const tcp = await TcpFrameClient.connect(port);
    const header = Buffer.alloc(6);
    header[0] = 1;
    header[1] = FrameType.Request;
    header.writeUInt32BE(4 << 20, 2);
    tcp.raw(header);
    for (let i = 0; i < 20 && !tcp.closed; i++) {
      tcp.raw(Buffer.from('x'));
      await sleep(50);
    }
    await tcp.waitClosed(5000);
    expect(tcp.frames.map((f) => (f.payload.error as { code: string }).code)).toEqual(['FRAME_TIMEOUT']);
  });

  it('caps the bytes of incomplete frames across all connections; the other connections go on', async () => {
    const g = new ProtocolGateway({ enableUDP: false, tcp: { maxTotalBufferedBytes: 64 * 1024 } });
    g.addService('Echo', { echo: async (r: unknown) => r });
    const { port } = await start(g);
    const big = encodeFrame(FrameType.Request, { id: 'big', service: 'Echo', method: 'echo', data: 'x'.repeat(40 * 1024) });
    const first = await TcpFrameClient.connect(port);
    first.raw(big.subarray(0, big.length - 10));
    await sleep(100);
    const second = await TcpFrameClient.connect(port);
    second.raw(big.subarray(0, big.length - 10));
    await second.waitClosed(5000);
    expect(second.frames.map((f) => (f.payload.error as { code: string }).code)).toEqual(['RESOURCE_EXHAUSTED']);
    first.raw(big.subarray(big.length - 10));
    const replies = await first.until((fs) => fs.length > 0);
    expect(replies[0]).toMatchObject({ type: FrameType.Response, payload: { id: 'big' } });
    first.close();
  });

  it('answers a client that half-closes right after its requests, then ends the connection', async () => {
    const g = new ProtocolGateway({ enableUDP: false });
    g.addService('Slow', { work: async (r: { n: number }) => { await sleep(200); return { n: r.n }; } });
    const { port } = await start(g);
    const socket = net.connect(port, HOST);
    socket.on('error', () => undefined);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise<void>((r) => socket.once('end', () => r()));
    socket.write(encodeFrame(FrameType.Request, { id: 1, service: 'Slow', method: 'work', data: { n: 1 } }));
    socket.end(encodeFrame(FrameType.Request, { id: 2, service: 'Slow', method: 'work', data: { n: 2 } }));
    await withTimeout(ended, 5000, 'server FIN');
    const { frames } = parseFrames(Buffer.concat(chunks));
    expect(frames.map((f) => f.payload.data).sort((a, b) => (a as { n: number }).n - (b as { n: number }).n)).toEqual([{ n: 1 }, { n: 2 }]);
    socket.destroy();
  });
});

describe('UDP amplification', () => {
  async function burst(port: number, count: number): Promise<number> {
    const socket = dgram.createSocket('udp4');
    let replies = 0;
    socket.on('message', () => replies++);
    await new Promise<void>((r) => socket.bind(0, HOST, () => r()));
    for (let i = 0; i < count; i++) socket.send(encodeFrame(FrameType.Request, { id: i, service: 'Echo', method: 'echo', data: i }), port, HOST);
    await sleep(500);
    socket.close();
    return replies;
  }

  it('limits well-formed requests per source address and stays silent past the limit', async () => {
    const g = new ProtocolGateway({ enableTCP: false, enableHTTP: false, enableWebSocket: false, enableGRPC: false, udp: { rateLimit: { requests: 5, window: 60_000 } } });
    g.addService('Echo', { echo: async (r: unknown) => r });
    const { udpPort } = await start(g);
    expect(await burst(udpPort, 20)).toBe(5);
  });

  it('is on by default: a burst of 300 requests from one address gets at most two windows of 100 replies', async () => {
    const g = new ProtocolGateway({ enableTCP: false, enableHTTP: false, enableWebSocket: false, enableGRPC: false });
    g.addService('Echo', { echo: async (r: unknown) => r });
    const { udpPort } = await start(g);
    const replies = await burst(udpPort, 300);
    expect(replies).toBeGreaterThan(0);
    expect(replies).toBeLessThanOrEqual(200);
  });

  it('never answers garbage with more bytes than it received', async () => {
    const g = new ProtocolGateway({ enableTCP: false, enableHTTP: false, enableWebSocket: false, enableGRPC: false });
    const { udpPort } = await start(g);
    const socket = dgram.createSocket('udp4');
    const sizes: [number, number][] = [];
    let sent = 0;
    socket.on('message', (m, rinfo) => sizes.push([rinfo.size, m.length]));
    await new Promise<void>((r) => socket.bind(0, HOST, () => r()));
    const inputs = [0, 1, 6, 20, 40, 60, 90, 150, 400].map((n) => Buffer.alloc(n, 0x7b));
    const largest: number[] = [];
    for (const input of inputs) {
      const before = sizes.length;
      socket.send(input, udpPort, HOST);
      sent++;
      await sleep(60);
      for (const [, length] of sizes.slice(before)) largest.push(length - input.length);
    }
    socket.close();
    expect(sent).toBe(inputs.length);
    expect(largest.every((extra) => extra <= 0)).toBe(true);
    expect(sizes.length).toBeGreaterThan(0);
  });
});

describe('JSON nested past 100 levels', () => {
  let port: number;
  let udpPort: number;
  let calls = 0;

  beforeAll(async () => {
    const g = new ProtocolGateway({ udp: { rateLimit: false } });
    g.addService('Echo', { echo: async (r: unknown) => { calls++; return r; } });
    ({ port, udpPort } = await start(g));
  });

  const tooDeep = nested(101);
  const deep = nested(300);
  /** 5,000 levels as text (JSON.stringify itself runs out of stack on such a value). */
  const veryDeepText = `${'{"a":'.repeat(4999)}{}${'}'.repeat(4999)}`;
  const envelopeText = `{"id":"deep","service":"Echo","method":"echo","data":${veryDeepText}}`;

  it('HTTP: 400 INVALID_ARGUMENT on the JSON fast path and through body-parser (gzip); 100 levels still pass', async () => {
    const before = calls;
    for (const body of [JSON.stringify(tooDeep), veryDeepText]) {
      const res = await fetch(`http://${HOST}:${port}/api/Echo/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5000) });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'INVALID_ARGUMENT' });
    }
    const zipped = await fetch(`http://${HOST}:${port}/api/Echo/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(gzipSync(veryDeepText)),
      signal: AbortSignal.timeout(5000),
    });
    expect(zipped.status).toBe(400);
    expect(calls).toBe(before);
    const ok = await fetch(`http://${HOST}:${port}/api/Echo/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(nested(100)), signal: AbortSignal.timeout(5000) });
    expect(ok.status).toBe(200);
  });

  it("server.http() with json(): 400 on the fast path and through body-parser, the route never runs", async () => {
    let routed = 0;
    const app = server.http();
    app.use(json());
    app.post('/echo', (req, res) => {
      routed++;
      res.json(req.body);
    });
    await app.listen(0, HOST);
    try {
      const send = (body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>): Promise<Response> =>
        fetch(`http://${HOST}:${app.port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(5000) });
      expect((await send(veryDeepText, {})).status).toBe(400);
      expect((await send(new Uint8Array(gzipSync(veryDeepText)), { 'content-encoding': 'gzip' })).status).toBe(400);
      expect(routed).toBe(0);
      expect((await send(JSON.stringify(nested(100)), {})).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('WebSocket json and msgpack, UDP and TCP: an INVALID_ARGUMENT error, the handler never runs', async () => {
    const before = calls;
    const message = { id: 'deep', service: 'Echo', method: 'echo', data: deep };
    const json = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    json.send(envelopeText);
    expect((await json.until((ms) => ms.length > 0))[0]).toMatchObject({ type: 'error', error: { code: 'INVALID_ARGUMENT' } });
    json.close();
    const packed = await WsClient.connect(`ws://${HOST}:${port}/ws`, { protocol: 'fw.msgpack', decode: (d) => msgpackDecode(d) });
    packed.send(msgpackEncode(message, { maxDepth: 1000 }));
    expect((await packed.until((ms) => ms.length > 0))[0]).toMatchObject({ type: 'error', error: { code: 'INVALID_ARGUMENT' } });
    packed.close();
    expect((await udpCall(udpPort, encodeFrame(FrameType.Request, { ...message, data: tooDeep }))).payload).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    const tcp = await TcpFrameClient.connect(port);
    const payload = Buffer.from(envelopeText);
    const header = Buffer.alloc(6);
    header[0] = 1;
    header[1] = FrameType.Request;
    header.writeUInt32BE(payload.length, 2);
    tcp.raw(Buffer.concat([header, payload]));
    expect((await tcp.until((fs) => fs.length > 0))[0]?.payload).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    tcp.close();
    expect(calls).toBe(before);
  });

  it('gRPC+JSON on the gateway and on server.grpc(): INVALID_ARGUMENT', async () => {
    const before = calls;
    const client = grpcJsonClient(port, 'Echo', { echo: 'none' });
    await expect(grpcUnary(client, 'echo', deep)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    client.close();
    expect(calls).toBe(before);
    let handled = 0;
    const app = server.grpc();
    app.addService({ name: 'Echo', methods: { echo: { handler: async (r: unknown) => { handled++; return r; } } } });
    const { port: grpcPort } = await app.listen(0, HOST);
    const direct = grpcJsonClient(grpcPort, 'Echo', { echo: 'none' });
    try {
      await expect(grpcUnary(direct, 'echo', tooDeep)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      expect((await grpcUnary(direct, 'echo', nested(100))).value).toEqual(nested(100));
      expect(handled).toBe(1);
    } finally {
      direct.close();
      await app.close();
    }
  });
});

describe('configuration that cannot be safe fails at start', () => {
  it("refuses CORS origin '*' with credentials in cors() and in the gateway", () => {
    expect(() => cors({ origin: '*', credentials: true })).toThrow(/credentials/);
    expect(() => cors({ credentials: true })).toThrow(/origin '\*'/);
    expect(() => cors({ origin: 'https://app.example.com', credentials: true })).not.toThrow();
    expect(() => new ProtocolGateway().configureHTTP({ enableCORS: true, cors: { origin: '*', credentials: true } })).toThrow(/credentials/);
    expect(() => new ProtocolGateway({ http: { enableCORS: true, cors: { credentials: true } } })).toThrow(/credentials/);
  });
});

describe('JWT hardening', () => {
  const SECRET = 'test-secret-that-is-long-enough-for-hs256';
  const key = new TextEncoder().encode(SECRET);
  const now = Math.floor(Date.now() / 1000);

  async function status(port: number, authorization: string | undefined): Promise<number> {
    const res = await fetch(`http://${HOST}:${port}/api/Me/who`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
      body: '{}',
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
    return res.status;
  }

  async function gatewayWith(jwt: Record<string, unknown>): Promise<number> {
    const g = new ProtocolGateway({ enableUDP: false });
    g.configureAuthentication({ providers: { jwt: { secret: SECRET, ...jwt } }, rules: { http: ['jwt'] } });
    g.addService({ name: 'Me', authentication: { required: true }, methods: { who: { handler: async () => ({ ok: true }) } } });
    return (await start(g)).port;
  }

  it('requires exp unless requireExpiration: false', async () => {
    const noExp = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(key);
    expect(await status(await gatewayWith({}), `Bearer ${noExp}`)).toBe(401);
    expect(await status(await gatewayWith({ requireExpiration: false }), `Bearer ${noExp}`)).toBe(200);
  });

  it('refuses an iat in the future beyond clockTolerance', async () => {
    const future = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now + 3600).setExpirationTime(now + 7200).sign(key);
    const slightly = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now + 20).setExpirationTime(now + 600).sign(key);
    const port = await gatewayWith({ clockTolerance: 60 });
    expect(await status(port, `Bearer ${future}`)).toBe(401);
    expect(await status(port, `Bearer ${slightly}`)).toBe(200);
  });

  it('requires the Bearer scheme in Authorization', async () => {
    const token = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(key);
    const port = await gatewayWith({});
    expect(await status(port, token)).toBe(401);
    expect(await status(port, `Basic ${token}`)).toBe(401);
    expect(await status(port, 'Bearer ')).toBe(401);
    expect(await status(port, `bearer ${token}`)).toBe(200);
  });
});
