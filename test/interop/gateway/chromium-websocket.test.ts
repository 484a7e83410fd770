/**
 * Interop: a page in headless Chromium (Debian package) calls the WebSocket
 * gateway with the browser's own WebSocket — unary, server streaming and
 * client streaming — and the test reads the page's results through the
 * DevTools protocol.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { ProtocolGateway } from 'fw';
import { waitForExit } from '../../support/child-exit';
import { CHROMIUM, PEERS, requirePeers } from '../../support/peers';

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

async function evaluate(debuggerUrl: string, expression: string): Promise<unknown> {
  const socket = new WebSocket(debuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  try {
    const reply = await new Promise<{ result?: { result?: { value?: unknown } } }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('CDP timeout')), 5000);
      socket.on('message', (data) => {
        const m = JSON.parse(String(data)) as { id?: number };
        if (m.id === 1) {
          clearTimeout(timer);
          resolve(m as never);
        }
      });
      socket.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression, returnByValue: true } }));
    });
    return reply.result?.result?.value;
  } finally {
    socket.close();
  }
}

requirePeers(PEERS.chromium)('gateway interop: headless Chromium over WebSocket', () => {
  let gateway: ProtocolGateway;
  let pages: http.Server;
  let chrome: ChildProcess | undefined;
  let profile: string;

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
    const html = page(`ws://${HOST}:${port}/ws`);
    pages = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(html);
    });
    await new Promise<void>((r) => pages.listen(0, HOST, () => r()));
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-chromium-'));
  });

  afterAll(async () => {
    if (chrome?.pid !== undefined && chrome.exitCode === null) {
      const exited = waitForExit(chrome, 5000);
      // Chromium runs helper processes: end the whole group we started.
      try {
        process.kill(-chrome.pid, 'SIGKILL');
      } catch {
        chrome.kill('SIGKILL');
      }
      await exited;
    }
    await gateway?.close();
    await new Promise((r) => pages?.close(r));
    if (profile !== undefined) {
      try {
        fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      } catch {
        // A helper still flushing its profile: the OS temp dir keeps it.
      }
    }
  });

  it('runs unary, server-streaming and client-streaming calls from a browser page', async () => {
    const pageUrl = `http://${HOST}:${(pages.address() as { port: number }).port}/`;
    chrome = spawn(CHROMIUM, [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', `--user-data-dir=${profile}`,
      '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', pageUrl,
    ], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    const devtools = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err}`)), 30_000);
      chrome?.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /DevTools listening on ws:\/\/([^/]+)\//.exec(err);
        if (m !== null && m[1] !== undefined) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    let result: unknown;
    for (let i = 0; i < 80 && result === undefined; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const targets = (await (await fetch(`http://${devtools}/json/list`, { signal: AbortSignal.timeout(5000) })).json()) as { type: string; url: string; webSocketDebuggerUrl: string }[];
      const target = targets.find((t) => t.type === 'page' && t.url === pageUrl);
      if (target === undefined) continue;
      result = await evaluate(target.webSocketDebuggerUrl, 'window.__result');
    }
    expect(result).toMatchObject({
      unary: { id: 'u1', type: 'response', method: 'echo', data: { from: 'chromium', traceId: 'browser-trace' }, traceId: 'browser-trace' },
      stream: ['stream:1', 'stream:2', 'stream:3', 'stream_end:'],
      client: { id: 'c1', type: 'response', data: { total: 6 } },
      error: { id: 'e1', type: 'error', error: { code: 'METHOD_NOT_FOUND' } },
    });
  }, 90_000);
});
