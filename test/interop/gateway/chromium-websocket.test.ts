/**
 * Interop: a page in headless Chromium (Debian package) calls the WebSocket
 * gateway with the browser's own WebSocket — unary, server streaming and
 * client streaming — and the test reads the page's results through the
 * DevTools protocol.
 */
import { ProtocolGateway } from 'fw';
import { PEERS, requirePeers } from '../../support/peers';
import { resultOfPage, servePage } from './support/headless-chromium';

const HOST = '127.0.0.1';

const page = (wsUrl: string): string => `<!doctype html><html><body><pre id="out">running</pre><script>
const results = {};
const ws = new WebSocket(${JSON.stringify(wsUrl)});
const byId = {};
ws.onmessage = (ev) => {
  const m = JSON.parse(ev.data);
  (byId[m.id] = byId[m.id] || []).push(m);
  const done = (id, n) => (byId[id] || []).length >= n;
  if (done('u1', 1) && done('s1', 4) && done('c1', 1) && done('e1', 1)) {
    results.unary = byId.u1[0];
    results.stream = byId.s1.map((x) => x.type + ':' + (x.data ? x.data.i : ''));
    results.client = byId.c1[0];
    results.error = byId.e1[0];
    window.__result = results;
    document.getElementById('out').textContent = JSON.stringify(results);
    ws.close();
  }
};
ws.onerror = () => { window.__result = { error: 'socket error' }; };
ws.onopen = () => {
  ws.send(JSON.stringify({ id: 'u1', service: 'Echo', method: 'echo', data: { from: 'chromium' }, traceId: 'browser-trace' }));
  ws.send(JSON.stringify({ id: 's1', service: 'Echo', method: 'count', data: { n: 3 } }));
  ws.send(JSON.stringify({ id: 'c1', service: 'Echo', method: 'sum', data: {} }));
  for (const n of [1, 2, 3]) ws.send(JSON.stringify({ id: 'c1', type: 'stream', data: { n } }));
  ws.send(JSON.stringify({ id: 'c1', type: 'stream_end' }));
  ws.send(JSON.stringify({ id: 'e1', service: 'Echo', method: 'missing', data: {} }));
};
</script></body></html>`;

requirePeers(PEERS.chromium)('gateway interop: headless Chromium over WebSocket', () => {
  let gateway: ProtocolGateway;
  let pages: Awaited<ReturnType<typeof servePage>>;

  beforeAll(async () => {
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addService('Echo', {
      echo: async (r: unknown, ctx: { tracing: { traceId: string } }) => ({ ...(r as object), traceId: ctx.tracing.traceId }),
      count: { streaming: 'server', handler: async function* (r: { n: number }) {
        for (let i = 1; i <= r.n; i++) yield { i };
      } },
      sum: { streaming: 'client', handler: async (reqs: AsyncIterable<{ n: number }>) => {
        let total = 0;
        for await (const r of reqs) total += r.n;
        return { total };
      } },
    });
    const port = (await gateway.listen(0, HOST)).port as number;
    pages = await servePage(page(`ws://${HOST}:${port}/ws`));
  });

  afterAll(async () => {
    await gateway?.close();
    await pages?.close();
  });

  it('runs unary, server-streaming and client-streaming calls from a browser page', async () => {
    const result = await resultOfPage(pages.url);
    expect(result).toMatchObject({
      unary: { id: 'u1', type: 'response', method: 'echo', data: { from: 'chromium', traceId: 'browser-trace' }, traceId: 'browser-trace' },
      stream: ['stream:1', 'stream:2', 'stream:3', 'stream_end:'],
      client: { id: 'c1', type: 'response', data: { total: 6 } },
      error: { id: 'e1', type: 'error', error: { code: 'METHOD_NOT_FOUND' } },
    });
  }, 90_000);
});
