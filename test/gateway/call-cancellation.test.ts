/**
 * Per-call cancellation and deadlines on the connection transports: a
 * `{id, type: 'cancel'}` WebSocket message or a type-8 frame (TCP, WebSocket
 * binary) aborts that call's `context.signal` alone, and a request's
 * `timeout` (ms) ends the call with DEADLINE_EXCEEDED and aborts its signal;
 * other calls on the same connection go on.
 */
import { encodeFrame, FrameType, ProtocolGateway, type RequestContext } from 'fw';
import { HOST, TcpFrameClient, withTimeout, WsClient } from './support/clients';

interface Msg {
  id?: unknown;
  type?: unknown;
  data?: unknown;
  error?: { code?: string; message?: string };
}

/** Resolves with true when `signal` aborts (false after 5 s): how the tests see the server observe a cancel. */
function abortSeen(signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const timer = setTimeout(() => resolve(false), 5000);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('gateway per-call cancel and deadline', () => {
  let gateway: ProtocolGateway;
  let port: number;
  /** The abort outcome of the latest call of each method, by the name the test gave it. */
  const outcomes = new Map<string, Promise<boolean>>();
  const started = new Map<string, () => void>();
  const startedPromise = (name: string): Promise<void> => new Promise((resolve) => started.set(name, resolve));

  const watch = (name: string, ctx: RequestContext): Promise<boolean> => {
    const seen = abortSeen(ctx.signal);
    outcomes.set(name, seen);
    started.get(name)?.();
    return seen;
  };

  beforeAll(async () => {
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addService('Slow', {
      wait: async (req: { name: string }, ctx: RequestContext) => {
        await watch(req.name, ctx);
        return { late: true };
      },
      echo: async (req: unknown) => req,
      ticks: {
        streaming: 'server',
        handler: async function* (req: { name: string }, ctx: RequestContext) {
          const seen = watch(req.name, ctx);
          for (let i = 0; i < 500 && !ctx.signal.aborted; i++) {
            yield { i };
            await new Promise((r) => setTimeout(r, 10));
          }
          await seen;
        },
      },
      collect: {
        streaming: 'client',
        handler: async (reqs: AsyncIterable<{ name: string }>, ctx: RequestContext) => {
          let failed = '';
          try {
            for await (const r of reqs) watch(r.name, ctx);
          } catch (e) {
            failed = (e as { code?: string }).code ?? 'error';
          }
          return { failed };
        },
      },
    });
    port = (await gateway.listen(0, HOST)).port as number;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  describe('WebSocket (json envelope)', () => {
    let ws: WsClient;
    beforeEach(async () => {
      ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    });
    afterEach(() => ws.close());
    const of = (id: string): Msg[] => (ws.messages as Msg[]).filter((m) => m.id === id);

    it('a cancel message aborts one unary call; the other call on the socket still answers', async () => {
      const running = startedPromise('ws-unary');
      ws.send({ id: 'a', service: 'Slow', method: 'wait', data: { name: 'ws-unary' } });
      await withTimeout(running, 5000, 'handler start');
      ws.send({ id: 'a', type: 'cancel' });
      await expect(outcomes.get('ws-unary')).resolves.toBe(true);
      const other = await ws.call('b', 'Slow', 'echo', { x: 1 });
      expect(other[0]).toMatchObject({ type: 'response', data: { x: 1 } });
      // Nothing is sent for the cancelled call, and its id can be used again.
      expect(of('a')).toEqual([]);
      const again = await ws.call('a', 'Slow', 'echo', { again: true });
      expect(again[0]).toMatchObject({ type: 'response', data: { again: true } });
    });

    it('a cancel message stops a server stream and aborts its handler', async () => {
      const running = startedPromise('ws-stream');
      ws.send({ id: 's', service: 'Slow', method: 'ticks', data: { name: 'ws-stream' } });
      await withTimeout(running, 5000, 'handler start');
      await ws.until(() => of('s').length >= 2);
      ws.send({ id: 's', type: 'cancel' });
      await expect(outcomes.get('ws-stream')).resolves.toBe(true);
      const count = of('s').length;
      await ws.call('p', 'Slow', 'echo', {});
      expect(of('s').length).toBe(count);
      expect(of('s').every((m) => m.type === 'stream')).toBe(true);
    });

    it('a cancel message fails a client stream the handler is reading', async () => {
      const running = startedPromise('ws-client');
      ws.send({ id: 'c', service: 'Slow', method: 'collect', data: {} });
      ws.send({ id: 'c', type: 'stream', data: { name: 'ws-client' } });
      await withTimeout(running, 5000, 'handler start');
      ws.send({ id: 'c', type: 'cancel' });
      await expect(outcomes.get('ws-client')).resolves.toBe(true);
      await ws.call('q', 'Slow', 'echo', {});
      expect(of('c')).toEqual([]);
    });

    it('a cancel for an unknown or finished id is ignored', async () => {
      ws.send({ id: 'nobody', type: 'cancel' });
      const reply = await ws.call('r', 'Slow', 'echo', { ok: 1 });
      expect(reply[0]).toMatchObject({ type: 'response' });
      expect(of('nobody')).toEqual([]);
    });

    it('a timeout ends the call with DEADLINE_EXCEEDED and aborts its handler', async () => {
      const reply = await ws.call('d', 'Slow', 'wait', { name: 'ws-deadline' }, { timeout: 50 });
      expect(reply).toEqual([expect.objectContaining({ type: 'error', error: expect.objectContaining({ code: 'DEADLINE_EXCEEDED' }) })]);
      await expect(outcomes.get('ws-deadline')).resolves.toBe(true);
    });

    it('a call that finishes before its timeout answers normally', async () => {
      const reply = await ws.call('f', 'Slow', 'echo', { fast: true }, { timeout: 60_000 });
      expect(reply).toEqual([expect.objectContaining({ type: 'response', data: { fast: true } })]);
    });

    it.each([[0], [-5], [1.5], ['100'], [2 ** 31]])('a malformed timeout (%p) is refused with BAD_REQUEST', async (timeout) => {
      const reply = await ws.call('m', 'Slow', 'echo', {}, { timeout });
      expect(reply[0]).toMatchObject({ type: 'error', error: { code: 'BAD_REQUEST' } });
      expect((reply[0] as Msg | undefined)?.error?.message).toMatch(/timeout/);
    });
  });

  it('WebSocket binary (frames): a type-8 frame aborts one call', async () => {
    const decode = (data: Buffer): unknown => ({ type: data[1], payload: JSON.parse(data.subarray(6).toString('utf8')) as Record<string, unknown> });
    const bin = await WsClient.connect(`ws://${HOST}:${port}/ws`, { protocol: 'fw.binary', decode });
    try {
      const running = startedPromise('ws-binary');
      bin.send(encodeFrame(FrameType.Request, { id: 'a', service: 'Slow', method: 'wait', data: { name: 'ws-binary' } }));
      await withTimeout(running, 5000, 'handler start');
      bin.send(encodeFrame(FrameType.Cancel, { id: 'a' }));
      await expect(outcomes.get('ws-binary')).resolves.toBe(true);
      bin.send(encodeFrame(FrameType.Request, { id: 'b', service: 'Slow', method: 'echo', data: { y: 1 } }));
      const replies = (await bin.until((ms) => ms.length >= 1)) as { type: number; payload: { id?: unknown } }[];
      expect(replies).toEqual([{ type: FrameType.Response, payload: expect.objectContaining({ id: 'b', data: { y: 1 } }) }]);
    } finally {
      bin.close();
    }
  });

  describe('TCP frames', () => {
    let tcp: TcpFrameClient;
    beforeEach(async () => {
      tcp = await TcpFrameClient.connect(port);
    });
    afterEach(() => tcp.close());
    const of = (id: string): { type: number }[] => tcp.frames.filter((f) => f.payload.id === id);

    it('a type-8 frame aborts one unary call; the other call on the connection still answers', async () => {
      const running = startedPromise('tcp-unary');
      tcp.send(FrameType.Request, { id: 'a', service: 'Slow', method: 'wait', data: { name: 'tcp-unary' } });
      await withTimeout(running, 5000, 'handler start');
      tcp.send(FrameType.Cancel, { id: 'a' });
      await expect(outcomes.get('tcp-unary')).resolves.toBe(true);
      const other = await tcp.call('b', 'Slow', 'echo', { x: 2 });
      expect(other[0]).toMatchObject({ type: FrameType.Response, payload: { data: { x: 2 } } });
      expect(of('a')).toEqual([]);
    });

    it('a type-8 frame stops a server stream and aborts its handler', async () => {
      const running = startedPromise('tcp-stream');
      tcp.send(FrameType.Request, { id: 's', service: 'Slow', method: 'ticks', data: { name: 'tcp-stream' } });
      await withTimeout(running, 5000, 'handler start');
      await tcp.until(() => of('s').length >= 2);
      tcp.send(FrameType.Cancel, { id: 's' });
      await expect(outcomes.get('tcp-stream')).resolves.toBe(true);
      const count = of('s').length;
      await tcp.call('p', 'Slow', 'echo', {});
      expect(of('s').length).toBe(count);
      expect(of('s').every((f) => f.type === FrameType.StreamItem)).toBe(true);
    });

    it('a type-8 frame fails a client stream', async () => {
      const running = startedPromise('tcp-client');
      tcp.send(FrameType.Request, { id: 'c', service: 'Slow', method: 'collect', data: {} });
      tcp.send(FrameType.ClientStreamItem, { id: 'c', data: { name: 'tcp-client' } });
      await withTimeout(running, 5000, 'handler start');
      tcp.send(FrameType.Cancel, { id: 'c' });
      await expect(outcomes.get('tcp-client')).resolves.toBe(true);
      await tcp.call('q', 'Slow', 'echo', {});
      expect(of('c')).toEqual([]);
    });

    it('a timeout ends the call with DEADLINE_EXCEEDED (type 3) and aborts its handler', async () => {
      const reply = await tcp.call('d', 'Slow', 'wait', { name: 'tcp-deadline' }, { timeout: 50 });
      expect(reply).toEqual([expect.objectContaining({ type: FrameType.Error, payload: expect.objectContaining({ error: expect.objectContaining({ code: 'DEADLINE_EXCEEDED' }) }) })]);
      await expect(outcomes.get('tcp-deadline')).resolves.toBe(true);
    });

    it('a malformed timeout is refused with BAD_REQUEST and the connection stays usable', async () => {
      const reply = await tcp.call('m', 'Slow', 'echo', {}, { timeout: 'soon' });
      expect(reply[0]).toMatchObject({ type: FrameType.Error, payload: { error: { code: 'BAD_REQUEST' } } });
      const ok = await tcp.call('n', 'Slow', 'echo', { fine: 1 });
      expect(ok[0]).toMatchObject({ type: FrameType.Response });
    });
  });
});
