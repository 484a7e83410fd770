/**
 * Interop: a page in headless Chromium, bundled by esbuild, calls the
 * gateway with @connectrpc/connect-web — Connect (POST and GET) and
 * gRPC-Web, unary and server streaming, errors, metadata — from another
 * origin, so every call goes through the gateway's CORS handling; a gateway
 * that does not list the page's origin is refused by the browser.
 */
import path from 'node:path';
import type { ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { startConnectGateway } from './support/connect-gateway';
import { PEERS, requirePeers } from '../../support/peers';
import { bundlePage, resultOfPage, servePage } from './support/headless-chromium';

requirePeers(PEERS.chromium)('gateway interop: @connectrpc/connect-web in headless Chromium', () => {
  const gateways: ProtocolGateway[] = [];
  let pages: Awaited<ReturnType<typeof servePage>> | undefined;

  afterAll(async () => {
    for (const g of gateways) await g.close();
    await pages?.close();
  });

  it('calls Connect and gRPC-Web from a cross-origin page: unary, GET, server streaming, errors, metadata, CORS', async () => {
    const script = await bundlePage(path.join(__dirname, 'fixtures/connect-web-page.ts'));
    let html = '';
    pages = await servePage(() => html);
    const pageOrigin = pages.origin;
    const allowed = await startConnectGateway((g) => g.configureConnect({ cors: { allowedOrigins: [pageOrigin], allowedHeaders: ['X-Custom'] } }));
    const other = await startConnectGateway((g) => g.configureConnect({ cors: { allowedOrigins: ['http://somewhere.example'] } }));
    gateways.push(allowed.gateway, other.gateway);
    const config = {
      baseUrl: `http://127.0.0.1:${allowed.port}`,
      forbiddenUrl: `http://127.0.0.1:${other.port}`,
      protos: (UserServiceDescriptor.fileDescriptorProtos ?? []).map((b) => Buffer.from(b).toString('base64')),
    };
    html = `<!doctype html><html><body><script>window.__config = ${JSON.stringify(config)};</script><script>${script}</script></body></html>`;
    const result = await resultOfPage(pages.url);
    expect(result).toEqual({
      unary: 'Ada',
      get: 'GET',
      metadata: 'from-browser',
      traceHeader: true,
      stream: ['u1', 'u2', 'u3'],
      error: '5:User missing not found',
      streamError: '6:Page 99 is gone',
      grpcWebUnary: 'Ada',
      grpcWebStream: ['u1', 'u2'],
      grpcWebError: '5:User missing not found',
      corsRefused: expect.stringMatching(/^2:/) as unknown,
    });
  }, 90_000);
});
