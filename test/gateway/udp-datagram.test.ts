/**
 * UDP datagram calls without a per-datagram session: the reply rules that
 * CallSession's sink used to apply (size limit, unencodable replies,
 * formatResponse failures), configureUDP changes after listen, envelope
 * metadata in the context, and a handler finishing after close.
 */
import dgram from 'node:dgram';
import { encodeFrame, FrameType, ProtocolGateway, type RequestContext } from 'fw';
import { HOST, udpCall, udpRaw, withTimeout } from './support/clients';
import { startedGateways } from './support/started-gateways';

const request = (payload: Record<string, unknown>): Buffer => encodeFrame(FrameType.Request, payload);

describe('UDP datagram calls', () => {
  const startGateway = startedGateways();
  const start = async (g: ProtocolGateway): Promise<number> => (await startGateway(g)).udpPort;

  it('answers a reply over maxPacketSize with RESPONSE_TOO_LARGE, and follows a later configureUDP', async () => {
    const g = new ProtocolGateway({ enableTCP: false, udp: { maxPacketSize: 200 } });
    g.addService('Big', { blob: async (r: { n: number }) => ({ text: 'x'.repeat(r.n) }) });
    const port = await start(g);
    const small = await udpCall(port, request({ id: 1, service: 'Big', method: 'blob', data: { n: 10 } }));
    expect(small).toMatchObject({ type: FrameType.Response, payload: { id: 1, data: { text: 'x'.repeat(10) } } });
    const big = await udpCall(port, request({ id: 2, service: 'Big', method: 'blob', data: { n: 500 } }));
    expect(big.type).toBe(FrameType.Error);
    expect(big.payload.error).toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    // The reply rules follow the configuration as it is now.
    g.configureUDP({ maxPacketSize: 2000 });
    const now = await udpCall(port, request({ id: 3, service: 'Big', method: 'blob', data: { n: 500 } }));
    expect(now).toMatchObject({ type: FrameType.Response, payload: { id: 3 } });
    g.configureUDP({ protocol: { formatResponse: (result, type) => `${type}:${JSON.stringify(result)}` } });
    expect((await udpRaw(port, request({ id: 4, service: 'Big', method: 'blob', data: { n: 2 } }))).toString()).toBe('response:{"text":"xx"}');
  });

  it('turns an unencodable result into INTERNAL_ERROR with the call id', async () => {
    const g = new ProtocolGateway({ enableTCP: false });
    g.addService('U', { big: async () => ({ n: BigInt(1) }), circular: async () => { const o: Record<string, unknown> = {}; o.self = o; return o; } });
    const port = await start(g);
    for (const method of ['big', 'circular']) {
      const reply = await udpCall(port, request({ id: 'u1', service: 'U', method, data: {} }));
      expect(reply.type).toBe(FrameType.Error);
      expect(reply.payload).toMatchObject({ id: 'u1', error: { code: 'INTERNAL_ERROR', message: 'Reply could not be encoded' } });
    }
  });

  it('answers "formatResponse failed" when formatResponse throws or returns no bytes', async () => {
    const g = new ProtocolGateway({ enableTCP: false });
    g.addService('F', { throws: async () => 'a', number: async () => 'b' });
    g.configureUDP({
      protocol: {
        formatResponse: (result) => {
          if (result === 'a') throw new Error('boom');
          if (result === 'b') return 42 as unknown as Buffer;
          return Buffer.from('ok');
        },
      },
    });
    const port = await start(g);
    for (const method of ['throws', 'number']) {
      const reply = await udpCall(port, request({ id: 1, service: 'F', method, data: {} }));
      expect(reply).toMatchObject({ type: FrameType.Error, payload: { error: { code: 'INTERNAL_ERROR', message: 'formatResponse failed' } } });
    }
  });

  it('refuses streaming methods and bad ids with the session rules', async () => {
    const g = new ProtocolGateway({ enableTCP: false });
    g.addService('S', {
      echo: async (r: unknown) => r,
      feed: { streaming: 'server', handler: async function* () { yield 1; } },
    });
    const port = await start(g);
    const streaming = await udpCall(port, request({ id: 7, service: 'S', method: 'feed', data: {} }));
    expect(streaming.payload).toMatchObject({ id: 7, error: { code: 'STREAMING_NOT_SUPPORTED' } });
    const badId = await udpCall(port, request({ id: { x: 1 }, service: 'S', method: 'echo', data: {} }));
    expect(badId.payload.id).toBeUndefined();
    expect(badId.payload.error).toMatchObject({ code: 'BAD_REQUEST', message: '"id" must be a string or a number' });
    const noService = await udpCall(port, request({ id: 8, method: 'echo' }));
    expect(noService.payload).toMatchObject({ id: 8, error: { code: 'BAD_REQUEST' } });
    // Two datagrams with the same id are two independent calls.
    const [a, b] = await Promise.all([udpCall(port, request({ id: 9, service: 'S', method: 'echo', data: { n: 1 } })), udpCall(port, request({ id: 9, service: 'S', method: 'echo', data: { n: 2 } }))]);
    expect([a.payload.data, b.payload.data]).toEqual(expect.arrayContaining([{ n: 1 }, { n: 2 }]));
  });

  it('gives the handler the sender, the envelope metadata, the message id and the trace id', async () => {
    const g = new ProtocolGateway({ enableTCP: false });
    let seen: RequestContext | undefined;
    g.addService('C', { who: async (_r: unknown, ctx: RequestContext) => { seen = ctx; return 'ok'; } });
    const port = await start(g);
    const reply = await udpCall(port, request({ id: 'm1', service: 'C', method: 'who', traceId: 'trace-1', metadata: { tenant: 't' } }));
    expect(reply.payload).toMatchObject({ id: 'm1', data: 'ok', traceId: 'trace-1' });
    expect(seen?.protocol).toBe('udp');
    expect(seen?.client.address).toBe(HOST);
    expect(seen?.client.id).toBe(`${HOST}:${seen?.client.port}`);
    expect(seen?.metadata).toMatchObject({ tenant: 't', messageId: 'm1' });
    expect(typeof seen?.metadata.packetSize).toBe('number');
    await udpCall(port, request({ id: 'm2', service: 'C', method: 'who' }));
    expect(seen?.metadata).toEqual({ messageId: 'm2', packetSize: expect.any(Number) });
  });

  it('past the shutdown timeout, close() waits for a handler that ignores its signal, and its late reply is dropped', async () => {
    const g = new ProtocolGateway({ enableTCP: false });
    let release: () => void = () => undefined;
    let aborted = false;
    const started = new Promise<void>((resolve) => {
      g.addService('Slow', {
        wait: async (_req: never, ctx: RequestContext) => {
          ctx.signal.addEventListener('abort', () => { aborted = true; });
          resolve();
          await new Promise<void>((r) => { release = r; });
          return 'late';
        },
      });
    });
    const port = await start(g);
    const socket = dgram.createSocket('udp4');
    const replies: Buffer[] = [];
    socket.on('message', (m) => replies.push(m));
    socket.send(request({ id: 1, service: 'Slow', method: 'wait' }), port, HOST);
    await withTimeout(started, 3000, 'call started');
    let closed = false;
    const closing = g.close({ timeoutMs: 100 }).then(() => { closed = true; });
    await new Promise((r) => setTimeout(r, 400));
    expect(aborted).toBe(true);
    expect(closed).toBe(false);
    release();
    await withTimeout(closing, 3000, 'close');
    await new Promise((r) => setTimeout(r, 50));
    socket.close();
    expect(replies).toEqual([]);
  });
});
