/**
 * configureWebSocket({handleStreaming: {server, client}}) (spec 4.10): the
 * server hook receives each server-streaming call's output as a stream with
 * `data` and `end` events and forwards it itself; the client hook's writable
 * sees every client-stream item, while the handler still receives them.
 */
import { Writable } from 'node:stream';
import { ProtocolGateway } from 'fw';
import { HOST, WsClient } from './support/clients';

type Msg = { id?: string; type?: string; data?: unknown; seq?: number };

describe('WebSocket handleStreaming hooks', () => {
  let gateway: ProtocolGateway;
  let port: number;
  const tapped: unknown[] = [];
  const tapEnded: unknown[] = [];

  beforeAll(async () => {
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addService('Hooks', {
      count: {
        streaming: 'server',
        handler: async function* (req: { n: number }) {
          for (let i = 1; i <= req.n; i++) yield { i };
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
      broken: {
        streaming: 'server',
        handler: async function* () {
          yield { i: 1 };
          throw new Error('stream broke');
        },
      },
    });
    gateway.configureWebSocket({
      path: '/ws',
      handleStreaming: {
        server: (stream, socket, messageId) => {
          let seq = 0;
          stream.on('data', (data: unknown) => socket.send(JSON.stringify({ id: messageId, type: 'stream', data, seq: seq++ })));
          stream.on('end', () => socket.send(JSON.stringify({ id: messageId, type: 'stream_end', seq })));
        },
        client: (_socket, messageId) =>
          new Writable({
            objectMode: true,
            write(chunk: unknown, _enc, done) {
              tapped.push({ messageId, chunk });
              done();
            },
            final(done) {
              tapEnded.push(messageId);
              done();
            },
          }),
      },
    });
    port = (await gateway.listen(0, HOST)).port as number;
  });

  afterAll(() => gateway.close());

  it('hands each server stream to the server hook, which forwards data and end', async () => {
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    const msgs = (await ws.call('h1', 'Hooks', 'count', { n: 3 })) as Msg[];
    expect(msgs.map((m) => [m.type, m.seq])).toEqual([
      ['stream', 0],
      ['stream', 1],
      ['stream', 2],
      ['stream_end', 3],
    ]);
    expect(msgs.slice(0, 3).map((m) => m.data)).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
    ws.close();
  });

  it('ends the hooked stream and sends the error reply when the handler fails', async () => {
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    ws.send({ id: 'h2', service: 'Hooks', method: 'broken', data: {} });
    const msgs = (await ws.until((ms) => ms.some((m) => (m as Msg).type === 'error'))) as Msg[];
    expect(msgs[0]).toMatchObject({ id: 'h2', type: 'stream', data: { i: 1 } });
    expect(msgs.find((m) => m.type === 'error')).toMatchObject({ id: 'h2', type: 'error', error: { code: 'INTERNAL_ERROR' } });
    ws.close();
  });

  it('tees client-stream items into the client hook while the handler still sums them', async () => {
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    ws.send({ id: 'h3', service: 'Hooks', method: 'sum', data: {} });
    for (const n of [2, 3]) ws.send({ id: 'h3', type: 'stream', data: { n } });
    ws.send({ id: 'h3', type: 'stream_end' });
    const msgs = (await ws.until((ms) => ms.some((m) => (m as Msg).type === 'response'))) as Msg[];
    expect(msgs.find((m) => m.type === 'response')).toMatchObject({ id: 'h3', data: { total: 5 } });
    expect(tapped).toEqual([
      { messageId: 'h3', chunk: { n: 2 } },
      { messageId: 'h3', chunk: { n: 3 } },
    ]);
    expect(tapEnded).toEqual(['h3']);
    ws.close();
  });
});
