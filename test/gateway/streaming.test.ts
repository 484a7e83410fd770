/**
 * Streaming on every transport that can carry it: server streams over gRPC,
 * WebSocket, TCP and HTTP (NDJSON, SSE); client and bidi streams over gRPC,
 * WebSocket and TCP; UDP refuses streaming methods with a clear error.
 */
import * as grpc from '@grpc/grpc-js';
import { decode, encode } from '@msgpack/msgpack';
import { encodeFrame, FrameType, ProtocolGateway } from 'fw';
import { grpcJsonClient, HOST, TcpFrameClient, udpCall, withTimeout, WsClient } from './support/clients';

const aborted: boolean[] = [];

describe('gateway streaming', () => {
  let gateway: ProtocolGateway;
  let port: number;

  beforeAll(async () => {
    gateway = new ProtocolGateway({});
    gateway.addService('Stream', {
      count: {
        streaming: 'server',
        handler: async function* (req: { n: number }) {
          for (let i = 1; i <= req.n; i++) yield { i };
        },
      },
      failAfterOne: {
        streaming: 'server',
        handler: async function* () {
          yield { i: 1 };
          throw Object.assign(new Error('stream broke'), { code: 14 });
        },
      },
      sum: {
        streaming: 'client',
        handler: async (reqs: AsyncIterable<{ n: number }>) => {
          let total = 0;
          for await (const r of reqs) total += r.n;
          return { total };
        },
      },
      endless: {
        streaming: 'server',
        handler: async function* (_req: unknown, ctx: { signal: AbortSignal }) {
          for (let i = 0; i < 1000 && !ctx.signal.aborted; i++) {
            yield { i };
            await new Promise((r) => setTimeout(r, 10));
          }
          aborted.push(ctx.signal.aborted);
        },
      },
      chat: {
        streaming: 'bidirectional',
        handler: async function* (reqs: AsyncIterable<{ text: string }>) {
          yield { text: 'system: hello' };
          for await (const r of reqs) yield { text: `echo: ${r.text}` };
        },
      },
    });
    port = (await gateway.listen(0, HOST)).port as number;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('server-streams over gRPC', async () => {
    const client = grpcJsonClient(port, 'Stream', { count: 'server' });
    const call = client.count({ n: 3 }) as grpc.ClientReadableStream<{ i: number }>;
    const items: unknown[] = [];
    await withTimeout((async () => {
      for await (const item of call) items.push(item);
    })(), 5000, 'grpc stream');
    expect(items).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
    client.close();
  });

  it('reports a mid-stream failure over gRPC with its status', async () => {
    const client = grpcJsonClient(port, 'Stream', { failAfterOne: 'server' });
    const call = client.failAfterOne({}) as grpc.ClientReadableStream<unknown>;
    const items: unknown[] = [];
    const err = await withTimeout((async () => {
      try {
        for await (const item of call) items.push(item);
      } catch (e) {
        return e as grpc.ServiceError;
      }
      return undefined;
    })(), 5000, 'grpc stream');
    expect(items).toEqual([{ i: 1 }]);
    expect(err?.code).toBe(grpc.status.UNAVAILABLE);
    client.close();
  });

  it('client-streams and bidi-streams over gRPC', async () => {
    const client = grpcJsonClient(port, 'Stream', { sum: 'client', chat: 'bidirectional' });
    const total = await withTimeout(new Promise((resolve, reject) => {
      const call = client.sum((err: Error | null, value: unknown) => (err === null ? resolve(value) : reject(err))) as grpc.ClientWritableStream<unknown>;
      for (const n of [1, 2, 3, 4]) call.write({ n });
      call.end();
    }), 5000, 'sum');
    expect(total).toEqual({ total: 10 });
    const chat = client.chat() as grpc.ClientDuplexStream<unknown, { text: string }>;
    chat.write({ text: 'a' });
    chat.write({ text: 'b' });
    chat.end();
    const out: string[] = [];
    await withTimeout((async () => {
      for await (const m of chat) out.push(m.text);
    })(), 5000, 'chat');
    expect(out).toEqual(['system: hello', 'echo: a', 'echo: b']);
    client.close();
  });

  it('streams over WebSocket: stream/stream_end, client and bidi streams', async () => {
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    const listed = await ws.call('s1', 'Stream', 'count', { n: 2 });
    expect(listed.map((m) => m.type)).toEqual(['stream', 'stream', 'stream_end']);
    expect(listed.map((m) => m.data).slice(0, 2)).toEqual([{ i: 1 }, { i: 2 }]);

    ws.send({ id: 's2', service: 'Stream', method: 'sum', data: {} });
    for (const n of [5, 6]) ws.send({ id: 's2', type: 'stream', data: { n } });
    ws.send({ id: 's2', type: 'stream_end' });
    const msgs = await ws.until((ms) => ms.some((m) => (m as { id: string; type: string }).id === 's2' && (m as { type: string }).type === 'response'));
    expect(msgs.find((m) => (m as { id: string }).id === 's2')).toMatchObject({ type: 'response', method: 'sum', data: { total: 11 } });

    ws.send({ id: 's3', service: 'Stream', method: 'chat', data: {} });
    ws.send({ id: 's3', type: 'stream', data: { text: 'hi' } });
    ws.send({ id: 's3', type: 'stream_end' });
    const chat = await ws.until((ms) => ms.some((m) => (m as { id: string }).id === 's3' && (m as { type: string }).type === 'stream_end'));
    expect(chat.filter((m) => (m as { id: string }).id === 's3').map((m) => (m as { data?: { text: string } }).data?.text)).toEqual(['system: hello', 'echo: hi', undefined]);
    ws.close();
  });

  it('speaks msgpack and binary frames over WebSocket when the client picks them', async () => {
    const mp = await WsClient.connect(`ws://${HOST}:${port}/ws`, { protocol: 'fw.msgpack', decode: (d) => decode(d) });
    mp.send(Buffer.from(encode({ id: 'm1', service: 'Stream', method: 'count', data: { n: 1 } })));
    const got = await mp.until((ms) => ms.some((m) => (m as { type: string }).type === 'stream_end'));
    expect(got[0]).toMatchObject({ id: 'm1', type: 'stream', data: { i: 1 } });
    mp.close();

    const bin = await WsClient.connect(`ws://${HOST}:${port}/ws`, {
      protocol: 'fw.binary',
      decode: (d) => ({ type: d[1], payload: JSON.parse(d.subarray(6).toString('utf8')) as unknown }),
    });
    bin.send(encodeFrame(FrameType.Request, { id: 'b1', service: 'Stream', method: 'count', data: { n: 2 } }));
    const frames = await bin.until((ms) => ms.some((m) => (m as { type: number }).type === FrameType.StreamEnd));
    expect(frames.map((f) => (f as { type: number }).type)).toEqual([4, 4, 5]);
    bin.close();
  });

  it('streams over TCP frames: stream items, client stream items and ends', async () => {
    const tcp = await TcpFrameClient.connect(port);
    const listed = await tcp.call('t1', 'Stream', 'count', { n: 3 });
    expect(listed.map((f) => f.type)).toEqual([4, 4, 4, 5]);
    tcp.send(FrameType.Request, { id: 't2', service: 'Stream', method: 'sum', data: {} });
    tcp.send(FrameType.ClientStreamItem, { id: 't2', data: { n: 40 } });
    tcp.send(FrameType.ClientStreamItem, { id: 't2', data: { n: 2 } });
    tcp.send(FrameType.ClientStreamEnd, { id: 't2' });
    const frames = await tcp.until((fs) => fs.some((f) => f.payload.id === 't2'));
    expect(frames.find((f) => f.payload.id === 't2')).toMatchObject({ type: FrameType.Response, payload: { data: { total: 42 } } });
    tcp.close();
  });

  it('server-streams over HTTP as NDJSON, and as SSE when asked', async () => {
    const nd = await fetch(`http://${HOST}:${port}/api/Stream/count`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n: 2 }), signal: AbortSignal.timeout(5000) });
    expect(nd.headers.get('content-type')).toContain('application/x-ndjson');
    expect((await nd.text()).trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([{ data: { i: 1 } }, { data: { i: 2 } }]);

    const sse = await fetch(`http://${HOST}:${port}/api/Stream/count`, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify({ n: 2 }), signal: AbortSignal.timeout(5000) });
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    expect(await sse.text()).toBe('data: {"i":1}\n\ndata: {"i":2}\n\nevent: end\ndata: {}\n\n');

    const broken = await fetch(`http://${HOST}:${port}/api/Stream/failAfterOne`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(5000) });
    const lines = (await broken.text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([{ data: { i: 1 } }, { error: 'UNAVAILABLE', message: 'stream broke' }]);
  });

  it('takes a client stream over HTTP as a JSON array', async () => {
    const res = await fetch(`http://${HOST}:${port}/api/Stream/sum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ n: 1 }, { n: 2 }]), signal: AbortSignal.timeout(5000) });
    expect(await res.json()).toEqual({ data: { total: 3 } });
    const bad = await fetch(`http://${HOST}:${port}/api/Stream/sum`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n: 1 }), signal: AbortSignal.timeout(5000) });
    expect(bad.status).toBe(400);
  });

  it('refuses streaming methods over UDP with STREAMING_NOT_SUPPORTED', async () => {
    const reply = await udpCall(port, encodeFrame(FrameType.Request, { id: 'u1', service: 'Stream', method: 'count', data: { n: 1 } }));
    expect(reply).toMatchObject({ type: FrameType.Error, payload: { id: 'u1', error: { code: 'STREAMING_NOT_SUPPORTED' } } });
  });

  it('aborts context.signal when the client goes away mid-stream (HTTP, WebSocket, TCP)', async () => {
    aborted.length = 0;
    const controller = new AbortController();
    const res = await fetch(`http://${HOST}:${port}/api/Stream/endless`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: controller.signal });
    const reader = res.body?.getReader();
    await reader?.read();
    controller.abort();
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    ws.send({ id: 'e', service: 'Stream', method: 'endless', data: {} });
    await ws.until((ms) => ms.length > 0);
    ws.close();
    const tcp = await TcpFrameClient.connect(port);
    tcp.send(FrameType.Request, { id: 'e', service: 'Stream', method: 'endless', data: {} });
    await tcp.until((fs) => fs.length > 0);
    tcp.close();
    const deadline = Date.now() + 5000;
    while (aborted.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(aborted).toEqual([true, true, true]);
  });
});
