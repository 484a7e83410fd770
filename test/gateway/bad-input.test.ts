/**
 * Bad input on every transport gets a clear error and the gateway keeps
 * serving everyone else: truncated and oversized frames, lying length
 * fields, non-JSON payloads, bad versions, oversized WebSocket messages
 * (1009), oversized HTTP bodies, unclassifiable or silent connections, and a
 * TCP client that never reads.
 */
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { encodeFrame, FrameType, ProtocolGateway, type GatewayEvent } from 'fw';
import { grpcJsonClient, grpcUnary, HOST, TcpFrameClient, udpCall, udpRaw, withTimeout, WsClient } from './support/clients';

function header(type: number, length: number, version = 1): Buffer {
  const b = Buffer.alloc(6);
  b[0] = version;
  b[1] = type;
  b.writeUInt32BE(length, 2);
  return b;
}

describe('gateway bad input', () => {
  let gateway: ProtocolGateway;
  let port: number;
  const events: GatewayEvent[] = [];
  let produced = 0;

  beforeAll(async () => {
    gateway = new ProtocolGateway({
      websocket: { maxPayload: 4096 },
      grpc: { maxMessageSize: 64 * 1024 },
      tcp: { maxFrameSize: 64 * 1024, idleTimeout: 2000, highWaterMark: 256 * 1024, maxBufferedBytes: 2 * 1024 * 1024, sniffTimeout: 500 },
      http: { maxBodySize: 64 * 1024, headersTimeout: 500, requestTimeout: 1000 },
    });
    gateway.addEventSink({ onEvent: (e) => {
      if (e.type === 'buffer') events.push(e);
    } });
    gateway.addService('Echo', {
      echo: async (req: unknown) => req,
      flood: {
        streaming: 'server',
        handler: async function* () {
          const chunk = 'x'.repeat(32 * 1024);
          for (let i = 0; i < 10_000; i++) {
            produced++;
            yield { i, chunk };
          }
        },
      },
    });
    port = (await gateway.listen(0, HOST)).port as number;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  async function stillServes(): Promise<void> {
    const tcp = await TcpFrameClient.connect(port);
    const replies = await tcp.call('ok', 'Echo', 'echo', { alive: true });
    expect(replies[0]).toMatchObject({ type: FrameType.Response, payload: { data: { alive: true } } });
    tcp.close();
    const res = await fetch(`http://${HOST}:${port}/api/Echo/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal: AbortSignal.timeout(5000) });
    expect(await res.json()).toEqual({ data: { a: 1 } });
  }

  afterEach(async () => {
    await stillServes();
  });

  describe('TCP frames', () => {
    it('answers a length over the limit with FRAME_TOO_LARGE, then closes', async () => {
      const tcp = await TcpFrameClient.connect(port);
      tcp.raw(header(FrameType.Request, 10 * 1024 * 1024));
      await tcp.waitClosed();
      expect(tcp.frames[0]).toMatchObject({ type: FrameType.Error, payload: { error: { code: 'FRAME_TOO_LARGE' } } });
    });

    it('answers a bad version byte with MALFORMED_FRAME, then closes', async () => {
      const tcp = await TcpFrameClient.connect(port);
      tcp.raw(Buffer.concat([Buffer.from([1, 1, 0, 0, 0, 2]), Buffer.from('{}'), Buffer.from([9, 1, 0, 0, 0, 0])]));
      await tcp.waitClosed();
      const codes = tcp.frames.map((f) => (f.payload.error as { code: string }).code);
      expect(codes).toEqual(['BAD_REQUEST', 'MALFORMED_FRAME']);
    });

    it('answers a non-JSON payload with MALFORMED_FRAME and keeps the connection', async () => {
      const tcp = await TcpFrameClient.connect(port);
      const junk = Buffer.from('not json at all');
      tcp.raw(Buffer.concat([header(FrameType.Request, junk.length), junk]));
      await tcp.until((fs) => fs.length === 1);
      expect(tcp.frames[0]).toMatchObject({ type: FrameType.Error, payload: { error: { code: 'MALFORMED_FRAME' } } });
      const replies = await tcp.call('after', 'Echo', 'echo', { ok: 1 });
      expect(replies[0]).toMatchObject({ type: FrameType.Response });
      tcp.close();
    });

    it('answers payloads that are not requests: wrong types, missing fields, unknown ids', async () => {
      const tcp = await TcpFrameClient.connect(port);
      tcp.send(9, { id: 'x' });
      tcp.send(FrameType.Request, { id: 'y', method: 'echo' });
      tcp.send(FrameType.ClientStreamItem, { id: 'nobody', data: {} });
      tcp.raw(encodeFrame(FrameType.Request, [1, 2, 3]));
      await tcp.until((fs) => fs.length === 4);
      expect(tcp.frames.map((f) => (f.payload.error as { code: string }).code)).toEqual(['BAD_REQUEST', 'BAD_REQUEST', 'BAD_REQUEST', 'MALFORMED_FRAME']);
      tcp.close();
    });

    it('closes a connection that sends a truncated frame and then goes silent', async () => {
      const tcp = await TcpFrameClient.connect(port);
      tcp.raw(Buffer.concat([header(FrameType.Request, 100), Buffer.from('{"id":')]));
      await tcp.waitClosed(5000);
      expect(tcp.closed).toBe(true);
    });

    it('does not grow memory for a client that never reads', async () => {
      produced = 0;
      events.length = 0;
      const socket = net.connect({ port, host: HOST });
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.pause(); // never read
      socket.write(encodeFrame(FrameType.Request, { id: 'flood', service: 'Echo', method: 'flood', data: {} }));
      await new Promise((r) => setTimeout(r, 1000));
      const peak = Math.max(0, ...events.map((e) => (e as { bufferedBytes: number }).bufferedBytes));
      expect(peak).toBeLessThan(2 * 1024 * 1024 + 64 * 1024);
      expect(produced).toBeLessThan(500); // the producer waits instead of filling memory
      socket.destroy();
    });
  });

  describe('UDP datagrams', () => {
    const code = async (bytes: Buffer): Promise<string> => ((await udpCall(port, bytes)).payload.error as { code: string }).code;

    it('answers truncated, lying, oversized, non-JSON and wrong-type datagrams with error frames no larger than themselves', async () => {
      const pad = Buffer.alloc(200, 0x20);
      const refused = async (bytes: Buffer): Promise<string> => {
        const raw = await udpRaw(port, bytes);
        expect(raw.length).toBeLessThanOrEqual(bytes.length);
        return ((await udpCall(port, bytes)).payload.error as { code: string }).code;
      };
      expect(await refused(Buffer.concat([header(FrameType.Request, 500), pad]))).toBe('MALFORMED_FRAME');
      expect(await refused(Buffer.concat([header(FrameType.Request, 0xffffffff), pad]))).toBe('FRAME_TOO_LARGE');
      const junk = Buffer.concat([Buffer.from('\u0000garbage'), pad]);
      expect(await refused(Buffer.concat([header(FrameType.Request, junk.length), junk]))).toBe('MALFORMED_FRAME');
      expect(await refused(encodeFrame(FrameType.Response, { id: 1, pad: 'x'.repeat(200) }))).toBe('BAD_REQUEST');
      expect(await refused(Buffer.concat([encodeFrame(FrameType.Request, {}), pad]))).toBe('MALFORMED_FRAME');
    });

    it('replies to a short malformed datagram with at most its own size: the bare code, else nothing', async () => {
      const bare = await udpRaw(port, Buffer.alloc(60, 0x41));
      expect(bare.length).toBeLessThanOrEqual(60);
      expect(bare[0]).toBe(1);
      expect(bare[1]).toBe(FrameType.Error);
      for (const tiny of [Buffer.from([1, 1, 0]), Buffer.from([0]), Buffer.from('hello')]) {
        await expect(udpRaw(port, tiny, 300)).rejects.toThrow('timed out');
      }
    });
  });

  describe('WebSocket', () => {
    it('closes with 1009 on a message over maxPayload', async () => {
      const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
      ws.send(JSON.stringify({ id: 'big', service: 'Echo', method: 'echo', data: 'x'.repeat(10_000) }));
      expect(await ws.waitClosed()).toBe(1009);
    });

    it('answers non-JSON, non-object and field-less messages with errors and keeps the connection', async () => {
      const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
      ws.send('{nope');
      ws.send('[1,2]');
      ws.send(JSON.stringify({ id: 'm', data: {} }));
      ws.send(JSON.stringify({ id: 's', type: 'stream', data: {} }));
      await ws.until((ms) => ms.length === 4);
      expect(ws.messages.map((m) => (m as { error: { code: string } }).error.code)).toEqual(['MALFORMED_MESSAGE', 'BAD_REQUEST', 'BAD_REQUEST', 'BAD_REQUEST']);
      const ok = await ws.call('ok', 'Echo', 'echo', { fine: true });
      expect(ok[0]).toMatchObject({ type: 'response', data: { fine: true } });
      ws.close();
    });

    it('does not grow memory for a WebSocket client that never reads', async () => {
      produced = 0;
      const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
      (ws.ws as unknown as { _socket: { pause(): void } })._socket.pause(); // never read
      ws.send({ id: 'flood', service: 'Echo', method: 'flood', data: {} });
      await new Promise((r) => setTimeout(r, 1000));
      expect(produced).toBeLessThan(500);
      ws.close();
    });

    it('refuses upgrades on other paths', async () => {
      await expect(WsClient.connect(`ws://${HOST}:${port}/elsewhere`)).rejects.toThrow();
    });
  });

  describe('HTTP', () => {
    const post = (path: string, body: string, headers: Record<string, string> = {}): Promise<Response> =>
      fetch(`http://${HOST}:${port}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, signal: AbortSignal.timeout(5000) });

    it('answers a client that never finishes its headers with 408 and closes', async () => {
      const socket = net.connect({ port, host: HOST });
      socket.on('error', () => undefined);
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write('GET /api HTTP/1.1\r\nHost: x\r\n');
      let out = '';
      socket.on('data', (d: Buffer) => (out += d.toString()));
      await withTimeout(new Promise((r) => socket.once('close', r)), 5000, 'headers timeout');
      expect(out).toMatch(/^HTTP\/1\.1 408/);
    });

    it('answers invalid JSON with 400 INVALID_JSON', async () => {
      const res = await post('/api/Echo/echo', '{"a":');
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'INVALID_JSON' });
    });

    it('answers a body over the limit with 413', async () => {
      const res = await post('/api/Echo/echo', JSON.stringify({ x: 'y'.repeat(100_000) }));
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
    });

    it('limits chunked bodies too, reads gzip bodies and refuses non-UTF-8 charsets (body-parser path)', async () => {
      const big = new TextEncoder().encode(JSON.stringify({ x: 'y'.repeat(100_000) }));
      const stream = new ReadableStream({ start(c) { c.enqueue(big); c.close(); } });
      const res = await fetch(`http://${HOST}:${port}/api/Echo/echo`, { method: 'POST', body: stream, headers: { 'content-type': 'application/json' }, duplex: 'half', signal: AbortSignal.timeout(5000) } as RequestInit);
      expect(res.status).toBe(413);
      const gz = (await import('node:zlib')).gzipSync(JSON.stringify({ zipped: true }));
      const zipped = await fetch(`http://${HOST}:${port}/api/Echo/echo`, { method: 'POST', body: new Uint8Array(gz), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, signal: AbortSignal.timeout(5000) });
      expect(await zipped.json()).toEqual({ data: { zipped: true } });
      const latin1 = await fetch(`http://${HOST}:${port}/api/Echo/echo`, { method: 'POST', body: new Uint8Array(Buffer.from('{"name":"Jos\u00e9"}', 'latin1')), headers: { 'content-type': 'application/json; charset=iso-8859-1' }, signal: AbortSignal.timeout(5000) });
      expect(latin1.status).toBe(415); // JSON is UTF-8 (RFC 8259); body-parser refuses other charsets
      expect(await latin1.json()).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    it('refuses __proto__ keys', async () => {
      const res = await post('/api/Echo/echo', '{"__proto__":{"polluted":true}}');
      expect(res.status).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((await post('/api/Echo/echo', '{"a":{"\\u005f_proto__":{"x":1}}}')).status).toBe(400);
      expect((await post('/api/Echo/echo', '{"constructor":{"prototype":{"x":1}}}')).status).toBe(400);
      expect((await post('/api/Echo/echo', '{"constructor":"a plain field"}')).status).toBe(200);
    });

    it('answers unknown routes with 404 and a non-object body with 400', async () => {
      const res = await fetch(`http://${HOST}:${port}/nowhere`, { signal: AbortSignal.timeout(5000) });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'NOT_FOUND' });
      expect((await post('/api/Echo/echo', '[1]')).status).toBe(400);
    });
  });

  describe('gRPC', () => {
    it('refuses a message over maxMessageSize with RESOURCE_EXHAUSTED', async () => {
      const client = grpcJsonClient(port, 'Echo', { echo: 'none' });
      const err = await grpcUnary(client, 'echo', { x: 'y'.repeat(100_000) }).catch((e: grpc.ServiceError) => e);
      expect((err as grpc.ServiceError).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      client.close();
    });
  });

  describe('the one-port mux', () => {
    it('closes connections whose first bytes match no protocol', async () => {
      const socket = net.connect({ port, host: HOST });
      socket.on('error', () => undefined);
      socket.write('\u00ffhello there');
      await withTimeout(new Promise((r) => socket.once('close', r)), 5000, 'mux close');
    });

    it('closes connections that stay silent past the sniff timeout', async () => {
      const socket = net.connect({ port, host: HOST });
      socket.on('error', () => undefined);
      await withTimeout(new Promise((r) => socket.once('close', r)), 5000, 'sniff timeout');
    });

    it('waits for more bytes when the first ones are ambiguous (P → PRI, POST, PUT, PATCH)', async () => {
      const socket = net.connect({ port, host: HOST });
      socket.on('error', () => undefined);
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write('P');
      await new Promise((r) => setTimeout(r, 50));
      socket.write('OST /api/Echo/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":2}');
      const text = await withTimeout(new Promise<string>((resolve) => {
        let buf = '';
        socket.on('data', (d) => (buf += d.toString()));
        socket.on('close', () => resolve(buf));
      }), 5000, 'http over split sniff');
      expect(text).toContain('{"data":{"a":2}}');
    });
  });
});
