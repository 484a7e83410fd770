/**
 * Headless Chromium (Debian package) runs a page bundled by esbuild that
 * uses the generated browser client against real gateways from another
 * origin: unary, server, client and bidi streams over the browser's own
 * WebSocket, unary and server streams over fetch (CORS), typed errors, the
 * token provider, a cancellation and a deadline the server observes, and a
 * reconnect after the gateway restarts under a running call.
 */
import path from 'node:path';
import type { ProtocolGateway } from 'fw';
import { PEERS, requirePeers } from '../support/peers';
import { bundlePage, resultOfPage, servePage } from '../interop/gateway/support/headless-chromium';
import { mintToken, startBrowserGateway } from './support/browser-gateway';

const ROOT = path.resolve(__dirname, '../..');

requirePeers(PEERS.chromium)('generated browser client in headless Chromium', () => {
  const gateways: ProtocolGateway[] = [];
  let pages: Awaited<ReturnType<typeof servePage>> | undefined;

  afterAll(async () => {
    for (const g of gateways) await g.close({ timeoutMs: 100 });
    await pages?.close();
  });

  it('calls every kind over WebSocket and fetch, cancels, times out, fails with typed errors and reconnects', async () => {
    const script = await bundlePage(path.join(__dirname, 'fixtures/browser-client-page.ts'), {
      'fw/browser': path.join(ROOT, 'runtime/browser/index.ts'),
      'fw/protobuf-wire': path.join(ROOT, 'runtime/protobuf-wire.ts'),
    });
    let html = '';
    pages = await servePage(() => html);
    const main = await startBrowserGateway({ corsOrigin: pages.origin });
    gateways.push(main.gateway);
    const restarting = await startBrowserGateway();
    const config = {
      wsUrl: `ws://127.0.0.1:${main.port}/ws`,
      httpUrl: `http://127.0.0.1:${main.port}`,
      restartingWsUrl: `ws://127.0.0.1:${restarting.port}/ws`,
      token: await mintToken(),
    };
    html = `<!doctype html><html><body><script>window.__config = ${JSON.stringify(config)};</script><script>${script}</script></body></html>`;

    // When the page's call on the second gateway is running, restart that gateway on the same port.
    const restarted = (async () => {
      await restarting.slow.started(1);
      await restarting.gateway.close({ timeoutMs: 50 });
      const back = await startBrowserGateway({ port: restarting.port });
      gateways.push(back.gateway);
    })();
    const result = await resultOfPage(pages.url);
    await restarted;
    expect(result).toEqual({
      unary: 'Ada',
      server: ['u1', 'u2', 'u3'],
      client: ['Ada', 'Bob'],
      bidi: ['page: hi', 'page: there'],
      authed: true,
      cancel: 'CANCELLED',
      deadline: 'DEADLINE_EXCEEDED',
      error: 'USER_NOT_FOUND:User missing not found:{"id":"missing"}',
      streamError: 'PAGE_GONE:Page 99 is gone:undefined',
      fetchUnary: 'Ada',
      fetchServer: ['u1', 'u2'],
      fetchError: 'USER_NOT_FOUND:User missing not found:{"id":"missing"}',
      fetchAuthed: true,
      dropped: 'UNAVAILABLE',
      reconnected: 'back',
    });
    // The server saw the page's cancel and its deadline: both slow calls' signals aborted.
    await expect(main.slow.aborted(0)).resolves.toBe(true);
    await expect(main.slow.aborted(1)).resolves.toBe(true);
  }, 90_000);
});
