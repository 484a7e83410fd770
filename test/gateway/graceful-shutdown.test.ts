/**
 * `close()` drains every protocol, on the standalone gateway and on an fw app
 * hosting it: a 1 s call in flight when close() starts completes and is
 * answered (HTTP with `Connection: close`, NDJSON to its last line, WebSocket
 * then close 1001, gRPC after GOAWAY, TCP then FIN, UDP); a new call during
 * the drain is refused (503 / UNAVAILABLE) and never applied; close() resolves
 * only after the reply left. Past `shutdownTimeout`, handlers' signals abort
 * and close() still waits for them to settle.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { encodeFrame, FrameType, ProtocolGateway, server, type FwApplication, type RequestContext } from 'fw';
import { grpcJsonClient, grpcUnary, HOST, parseFrames, TcpFrameClient, withTimeout, WsClient } from './support/clients';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One gateway (standalone or hosted by an app) with a slow, non-idempotent service. */
interface Rig {
  port: number;
  /** Every side effect a handler applied, in order. */
  applied: string[];
  /** Resolves when the handler for `id` has started. */
  started(id: string): Promise<void>;
  close(options?: { timeoutMs?: number }): Promise<void>;
}

async function rig(mode: 'standalone' | 'app-hosted', shutdownTimeout?: number): Promise<Rig> {
  const applied: string[] = [];
  const waiting = new Map<string, () => void>();
  const begun = new Set<string>();
  const mark = (id: string): void => {
    begun.add(id);
    waiting.get(id)?.();
  };
  const gateway = new ProtocolGateway({ shutdownTimeout, udp: { rateLimit: false } });
  gateway.addService('Slow', {
    methods: {
      work: {
        handler: async (req: { id: string }, ctx: RequestContext) => {
          mark(req.id);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 1000);
            ctx.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              resolve();
            });
          });
          if (ctx.signal.aborted) throw new Error('aborted');
          applied.push(req.id);
          return { done: req.id };
        },
      },
      endless: {
        streaming: 'server',
        handler: async function* (req: { id: string }, ctx: RequestContext) {
          mark(req.id);
          // Bounded: about 10 s at most, far past any shutdownTimeout the tests use.
          for (let i = 0; i < 200 && !ctx.signal.aborted; i++) {
            yield { i };
            await sleep(50);
          }
        },
      },
      ticks: {
        streaming: 'server',
        handler: async function* (req: { id: string }) {
          mark(req.id);
          for (let i = 0; i < 3; i++) {
            await sleep(333);
            yield { i };
          }
          applied.push(req.id);
        },
      },
    },
  } as never);
  const started = (id: string): Promise<void> =>
    withTimeout(new Promise<void>((resolve) => (begun.has(id) ? resolve() : waiting.set(id, resolve))), 5000, `handler ${id} started`);
  if (mode === 'standalone') {
    const address = await gateway.listen(0, HOST);
    return { port: address.port as number, applied, started, close: (o) => gateway.close(o) };
  }
  const app: FwApplication = server.http();
  app.use('/api', gateway.middleware());
  app.withOptions({ websocket: gateway.getWebSocketConfig(), grpc: gateway.getGRPCConfig(), udp: gateway.getUDPConfig(), tcp: gateway.getTCPConfig() });
  await app.listen(0, HOST);
  return { port: app.port, applied, started, close: (o) => app.close({ graceMs: o?.timeoutMs ?? shutdownTimeout }) };
}

/** An HTTP request whose body is completed only when `finish()` is called: it reaches dispatch during the drain. */
function heldRequest(port: number, id: string): { finish(): void; response: Promise<string> } {
  const body = JSON.stringify({ id });
  const socket = net.connect(port, HOST);
  socket.on('error', () => undefined);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.write(`POST /api/Slow/work HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`);
  const response = withTimeout(new Promise<string>((resolve) => socket.once('close', () => resolve(text))), 5000, 'held request');
  return { finish: () => socket.write(body.slice(3)), response };
}

describe.each(['standalone', 'app-hosted'] as const)('graceful shutdown (%s)', (mode) => {
  it('HTTP: the call in flight completes with Connection: close; a request arriving during the drain gets 503 and is not applied', async () => {
    const r = await rig(mode);
    const held = heldRequest(r.port, 'h-late');
    const call = fetch(`http://${HOST}:${r.port}/api/Slow/work`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'h1' }), signal: AbortSignal.timeout(10_000) });
    await r.started('h1');
    const order: string[] = [];
    const closing = r.close().then(() => order.push('closed'));
    await sleep(50);
    held.finish();
    const res = await call;
    order.push('answered');
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ data: { done: 'h1' } });
    const late = await held.response;
    expect(late).toMatch(/^HTTP\/1\.1 503/);
    expect(late).toMatch(/Connection: close/i);
    expect(late).toContain('UNAVAILABLE');
    await withTimeout(closing, 5000, 'close');
    expect(order).toEqual(['answered', 'closed']);
    expect(r.applied).toEqual(['h1']);
  });

  it('NDJSON stream: every line arrives before close() resolves', async () => {
    const r = await rig(mode);
    const res = await fetch(`http://${HOST}:${r.port}/api/Slow/ticks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 's1' }), signal: AbortSignal.timeout(10_000) });
    await r.started('s1');
    let closed = false;
    const closing = r.close().then(() => {
      closed = true;
    });
    const text = await res.text();
    expect(text.trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([{ data: { i: 0 } }, { data: { i: 1 } }, { data: { i: 2 } }]);
    await withTimeout(closing, 5000, 'close');
    expect(closed).toBe(true);
    expect(r.applied).toEqual(['s1']);
  });

  it('WebSocket: the call in flight is answered, a new call is refused with UNAVAILABLE, then close 1001', async () => {
    const r = await rig(mode);
    const ws = await WsClient.connect(`ws://${HOST}:${r.port}/ws`);
    ws.send({ id: 'w1', service: 'Slow', method: 'work', data: { id: 'w1' } });
    await r.started('w1');
    const closing = r.close();
    await sleep(50);
    const refused = await ws.call('w2', 'Slow', 'work', { id: 'w2' });
    expect(refused[0]).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE' } });
    const answered = await ws.until((ms) => ms.some((m) => (m as { id?: string; type?: string }).id === 'w1' && (m as { type?: string }).type === 'response'));
    expect(answered.find((m) => (m as { id?: string }).id === 'w1')).toMatchObject({ data: { done: 'w1' } });
    expect(await ws.waitClosed(5000)).toBe(1001);
    await withTimeout(closing, 5000, 'close');
    expect(r.applied).toEqual(['w1']);
  });

  it('gRPC: the call in flight completes after GOAWAY; a new call is refused with UNAVAILABLE', async () => {
    const r = await rig(mode);
    const client = grpcJsonClient(r.port, 'Slow', { work: 'none' });
    try {
      const call = grpcUnary(client, 'work', { id: 'g1' });
      await r.started('g1');
      const closing = r.close();
      await sleep(50);
      await expect(grpcUnary(client, 'work', { id: 'g2' })).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
      expect((await call).value).toEqual({ done: 'g1' });
      await withTimeout(closing, 5000, 'close');
      expect(r.applied).toEqual(['g1']);
    } finally {
      client.close();
    }
  });

  it('TCP: the call in flight gets its reply, a new one UNAVAILABLE, then FIN', async () => {
    const r = await rig(mode);
    const tcp = await TcpFrameClient.connect(r.port);
    tcp.send(FrameType.Request, { id: 't1', service: 'Slow', method: 'work', data: { id: 't1' } });
    await r.started('t1');
    const closing = r.close();
    await sleep(50);
    const refused = await tcp.call('t2', 'Slow', 'work', { id: 't2' });
    expect(refused[0]?.payload).toMatchObject({ error: { code: 'UNAVAILABLE' } });
    const frames = await tcp.until((fs) => fs.some((f) => f.payload.id === 't1'));
    expect(frames.find((f) => f.payload.id === 't1')).toMatchObject({ type: FrameType.Response, payload: { data: { done: 't1' } } });
    await tcp.waitClosed(5000);
    await withTimeout(closing, 5000, 'close');
    expect(r.applied).toEqual(['t1']);
  });

  it('UDP: the call in flight is answered, a new datagram gets UNAVAILABLE', async () => {
    const r = await rig(mode);
    const socket = dgram.createSocket('udp4');
    const replies: Record<string, unknown>[] = [];
    socket.on('message', (m) => replies.push(...parseFrames(m).frames.map((f) => f.payload)));
    await new Promise<void>((resolve) => socket.bind(0, HOST, () => resolve()));
    try {
      socket.send(encodeFrame(FrameType.Request, { id: 'u1', service: 'Slow', method: 'work', data: { id: 'u1' } }), r.port, HOST);
      await r.started('u1');
      const closing = r.close();
      await sleep(50);
      socket.send(encodeFrame(FrameType.Request, { id: 'u2', service: 'Slow', method: 'work', data: { id: 'u2' } }), r.port, HOST);
      await withTimeout(closing, 5000, 'close');
      expect(replies.find((p) => p.id === 'u2')).toMatchObject({ error: { code: 'UNAVAILABLE' } });
      expect(replies.find((p) => p.id === 'u1')).toMatchObject({ data: { done: 'u1' } });
      expect(r.applied).toEqual(['u1']);
    } finally {
      socket.close();
    }
  });

  it('past the shutdown timeout the handler signal aborts, nothing is applied, and close() waits for the handler to settle', async () => {
    const r = await rig(mode, 200);
    const tcp = await TcpFrameClient.connect(r.port);
    tcp.send(FrameType.Request, { id: 'x1', service: 'Slow', method: 'work', data: { id: 'x1' } });
    await r.started('x1');
    await withTimeout(r.close(), 5000, 'close');
    await tcp.waitClosed(5000);
    // The client saw its connection cut, and the handler (which honours its signal) applied nothing.
    expect(tcp.frames.filter((f) => f.payload.id === 'x1' && f.type === FrameType.Response)).toEqual([]);
    expect(r.applied).toEqual([]);
  });

  it('past the shutdown timeout every open stream ends with its protocol\'s UNAVAILABLE, never a bare cut', async () => {
    const r = await rig(mode, 300);
    const base = `http://${HOST}:${r.port}`;
    const ndjson = fetch(`${base}/api/Slow/endless`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'n' }), signal: AbortSignal.timeout(5000) }).then((res) => res.text());
    const sse = fetch(`${base}/api/Slow/endless`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ id: 's' }), signal: AbortSignal.timeout(5000) }).then((res) => res.text());
    const envelope = (json: string): Buffer => Buffer.concat([Buffer.from([0, 0, 0, 0, json.length]), Buffer.from(json)]);
    // Connect rides the gateway's own port only (an app mounts the gateway's HTTP under /api).
    const connect = mode !== 'standalone' ? undefined : fetch(`${base}/Slow/endless`, { method: 'POST', headers: { 'content-type': 'application/connect+json' }, body: new Uint8Array(envelope('{"id":"c"}')), signal: AbortSignal.timeout(5000) }).then(async (res) => Buffer.from(await res.arrayBuffer()));
    const ws = await WsClient.connect(`ws://${HOST}:${r.port}/ws`);
    ws.send({ id: 'w', service: 'Slow', method: 'endless', data: { id: 'w' } });
    const tcp = await TcpFrameClient.connect(r.port);
    tcp.send(FrameType.Request, { id: 't', service: 'Slow', method: 'endless', data: { id: 't' } });
    const client = grpcJsonClient(r.port, 'Slow', { endless: 'server' });
    const grpcEnd = new Promise<grpc.ServiceError | undefined>((resolve) => {
      const stream = (client.endless as (r: unknown) => NodeJS.EventEmitter)({ id: 'g' });
      stream.on('data', () => undefined);
      stream.on('error', (e: grpc.ServiceError) => resolve(e));
      stream.on('end', () => resolve(undefined));
    });
    for (const id of connect === undefined ? ['n', 's', 'w', 't', 'g'] : ['n', 's', 'c', 'w', 't', 'g']) await r.started(id);
    await withTimeout(r.close(), 5000, 'close');

    const lastLine = (await ndjson).trim().split('\n').pop() as string;
    expect(JSON.parse(lastLine)).toMatchObject({ error: 'UNAVAILABLE' });
    expect((await sse).trim().split('\n\n').pop()).toMatch(/^event: error\ndata: \{"error":"UNAVAILABLE"/);
    if (connect !== undefined) {
      // Connect: the end-of-stream message (flag 2) carries the error.
      const body = await connect;
      let end: unknown;
      for (let at = 0; at + 5 <= body.length; at += 5 + body.readUInt32BE(at + 1)) {
        if (((body[at] as number) & 2) !== 0) end = JSON.parse(body.subarray(at + 5, at + 5 + body.readUInt32BE(at + 1)).toString());
      }
      expect(end).toMatchObject({ error: { code: 'unavailable' } });
    }
    const wsLast = (await ws.until((ms) => ms.some((m) => (m as { type?: string }).type === 'error'))).filter((m) => (m as { id?: string }).id === 'w').pop();
    expect(wsLast).toMatchObject({ type: 'error', error: { code: 'UNAVAILABLE' } });
    const tcpLast = (await tcp.until((fs) => fs.some((f) => f.type === FrameType.Error))).filter((f) => f.payload.id === 't').pop();
    expect(tcpLast).toMatchObject({ type: FrameType.Error, payload: { error: { code: 'UNAVAILABLE' } } });
    expect(await grpcEnd).toMatchObject({ code: grpc.status.UNAVAILABLE });
    ws.close();
    tcp.close();
    client.close();
  });
});
