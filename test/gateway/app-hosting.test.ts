/**
 * Spec 4.10 "Using the gateway inside an fw app": `gateway.middleware()` plus
 * `app.withOptions({ websocket, grpc, udp, tcp })` serve every protocol on the
 * app's one port, next to ordinary fw routes; `app.close()` releases it all.
 */
import http from 'node:http';
import net from 'node:net';
import { encodeFrame, FrameType, ProtocolGateway, server, type FwApplication } from 'fw';
import { grpcJsonClient, grpcUnary, HOST, TcpFrameClient, udpCall, withTimeout, WsClient } from './support/clients';

/** Called when `Echo.slow` starts, so a test can close the app while it is in flight. */
let onSlowStart = (): void => undefined;

function makeGateway(): ProtocolGateway {
  const gateway = new ProtocolGateway({});
  gateway.addService('Echo', {
    echo: async (req: unknown) => req,
    slow: async (req: unknown) => {
      onSlowStart();
      await new Promise((r) => setTimeout(r, 150));
      return req;
    },
  });
  return gateway;
}

function hostingApp(gateway: ProtocolGateway, options: { only?: 'websocket' } = {}): FwApplication {
  const app = server.http();
  app.get('/hello', (_req, res) => res.json({ hello: 'fw' }));
  app.use('/api', gateway.middleware());
  if (options.only === 'websocket') return app.withOptions({ websocket: gateway.getWebSocketConfig() });
  return app.withOptions({ websocket: gateway.getWebSocketConfig(), grpc: gateway.getGRPCConfig(), udp: gateway.getUDPConfig(), tcp: gateway.getTCPConfig() });
}

async function post(port: number, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`http://${HOST}:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, json: await res.json() };
}

/** A POST on its own connection (no client pool: the app re-listens on the same port later). */
function postUnpooled(port: number, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  return withTimeout(
    new Promise((resolve, reject) => {
      const req = http.request({ host: HOST, port, path, method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as unknown }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    }),
    5000,
    `POST ${path}`,
  );
}

/** Writes `bytes` on a fresh connection; resolves with what came back once the server closes it. */
function rawExchange(port: number, bytes: Buffer | string): Promise<string> {
  return withTimeout(
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, HOST, () => socket.write(bytes));
      let got = '';
      socket.on('data', (chunk: Buffer) => {
        got += chunk.toString('latin1');
      });
      socket.once('error', reject);
      socket.once('close', () => resolve(got));
    }),
    5000,
    'server closes the connection',
  );
}

async function callEverything(port: number): Promise<void> {
  expect(await (await fetch(`http://${HOST}:${port}/hello`, { signal: AbortSignal.timeout(5000) })).json()).toEqual({ hello: 'fw' });
  expect(await post(port, '/api/Echo/echo', { via: 'http' })).toEqual({ status: 200, json: { data: { via: 'http' } } });

  const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
  try {
    const replies = await ws.call('w1', 'Echo', 'echo', { via: 'ws' });
    expect(replies[0]).toMatchObject({ id: 'w1', type: 'response', data: { via: 'ws' } });
  } finally {
    ws.close();
  }

  const grpc = grpcJsonClient(port, 'Echo', { echo: 'none' });
  try {
    expect((await grpcUnary(grpc, 'echo', { via: 'grpc' })).value).toEqual({ via: 'grpc' });
  } finally {
    grpc.close();
  }

  const tcp = await TcpFrameClient.connect(port);
  try {
    const frames = await tcp.call('t1', 'Echo', 'echo', { via: 'tcp' });
    expect(frames[0]).toMatchObject({ type: FrameType.Response, payload: { id: 't1', data: { via: 'tcp' } } });
  } finally {
    tcp.close();
  }

  const udp = await udpCall(port, encodeFrame(FrameType.Request, { id: 'u1', service: 'Echo', method: 'echo', data: { via: 'udp' } }));
  expect(udp).toMatchObject({ type: FrameType.Response, payload: { id: 'u1', data: { via: 'udp' } } });
}

describe('an fw app hosting a protocol gateway on its one port', () => {
  let gateway: ProtocolGateway;
  let app: FwApplication;
  let port: number;

  beforeAll(async () => {
    gateway = makeGateway();
    app = hostingApp(gateway);
    await app.listen(0, HOST);
    port = app.port;
  });

  afterAll(async () => {
    await app.close({ graceMs: 1000 });
    await gateway.close();
  });

  it('serves an fw route, the gateway over HTTP, WebSocket, gRPC, TCP frames and UDP', async () => {
    expect(port).toBeGreaterThan(0);
    expect(app.url).toBe(`http://${HOST}:${port}`);
    await callEverything(port);
  });

  it('closes connections whose first bytes match no protocol, and keeps serving', async () => {
    expect(await rawExchange(port, Buffer.from('\x16\x03\x01 not a protocol at all'))).toBe('');
    expect(await rawExchange(port, Buffer.from([0x7f, 0x00, 0x00, 0x00]).toString('latin1') + 'x'.repeat(20))).toBe('');
    expect(await (await fetch(`http://${HOST}:${port}/hello`, { signal: AbortSignal.timeout(5000) })).json()).toEqual({ hello: 'fw' });
  });

  it('answers an upgrade on another path with 404 and closes it', async () => {
    const reply = await rawExchange(port, 'GET /elsewhere HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 404/);
  });

  it('keeps unmatched HTTP routes as ordinary fw 404s', async () => {
    const res = await fetch(`http://${HOST}:${port}/nope`, { signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(404);
    await res.arrayBuffer();
  });
});

describe('hosting: close and re-listen', () => {
  it('close() finishes HTTP in flight, ends stream connections, and frees the port for TCP and UDP', async () => {
    const gateway = makeGateway();
    const app = hostingApp(gateway);
    await app.listen(0, HOST);
    const port = app.port;
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    const tcp = await TcpFrameClient.connect(port);
    const grpc = grpcJsonClient(port, 'Echo', { echo: 'none' });
    try {
      await grpcUnary(grpc, 'echo', {});
      const started = new Promise<void>((resolve) => {
        onSlowStart = resolve;
      });
      const inFlight = postUnpooled(port, '/api/Echo/slow', { late: true });
      await withTimeout(started, 5000, 'slow call started');
      // A long grace: close must not wait for clients that never leave by themselves.
      await app.close({ graceMs: 60_000 });
      expect(await inFlight).toEqual({ status: 200, json: { data: { late: true } } });
      await tcp.waitClosed();
      await ws.waitClosed();
      expect(app.address()).toBeNull();

      await app.listen(port, HOST);
      expect(app.port).toBe(port);
      await callEverything(port);
    } finally {
      ws.close();
      tcp.close();
      grpc.close();
      await app.close({ graceMs: 1000 });
      await gateway.close();
    }
  });

  it('a closed port is really free: another app binds it (TCP and UDP)', async () => {
    const gateway = makeGateway();
    const first = hostingApp(gateway);
    await first.listen(0, HOST);
    const port = first.port;
    await first.close();
    const second = hostingApp(gateway);
    try {
      await second.listen(port, HOST);
      await callEverything(port);
    } finally {
      await second.close({ graceMs: 1000 });
      await gateway.close();
    }
  });
});

describe('hosting: WebSocket only (no mux)', () => {
  it('serves WebSocket upgrades on the config path from the app server itself', async () => {
    const gateway = makeGateway();
    const app = hostingApp(gateway, { only: 'websocket' });
    await app.listen(0, HOST);
    const port = app.port;
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    try {
      expect((await ws.call('a', 'Echo', 'echo', 7))[0]).toMatchObject({ type: 'response', data: 7 });
      expect(await (await fetch(`http://${HOST}:${port}/hello`, { signal: AbortSignal.timeout(5000) })).json()).toEqual({ hello: 'fw' });
      expect(await rawExchange(port, 'GET /other HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n')).toMatch(/^HTTP\/1\.1 404/);
      // No gRPC/TCP given: a frame-protocol byte is just bad HTTP.
      expect(await rawExchange(port, Buffer.from([0x01, 0x01, 0, 0, 0, 2, 0x7b, 0x7d]))).toMatch(/^HTTP\/1\.1 400|^$/);
      await app.close({ graceMs: 60_000 });
      expect(await ws.waitClosed()).toBeDefined();
    } finally {
      ws.close();
      await app.close({ graceMs: 1000 });
      await gateway.close();
    }
  });
});

describe('hosting: timeouts and refusals', () => {
  it('enforces headersTimeout on HTTP connections handed over by the mux', async () => {
    const gateway = makeGateway();
    const app = hostingApp(gateway).withOptions({ headersTimeout: 200, requestTimeout: 400 });
    await app.listen(0, HOST);
    try {
      const reply = await rawExchange(app.port, 'GET /hello HTTP/1.1\r\nHost: x\r\n');
      expect(reply).toMatch(/^HTTP\/1\.1 408|^$/);
    } finally {
      await app.close({ graceMs: 1000 });
      await gateway.close();
    }
  });

  it('refuses malformed hosting options with a TypeError naming the key', () => {
    const app = server.http();
    const bad = (options: unknown): (() => unknown) => () => app.withOptions(options as Parameters<FwApplication['withOptions']>[0]);
    expect(bad({ grpc: {} })).toThrow(/grpc\.injectConnection must be a function/);
    expect(bad({ tcp: 'yes' })).toThrow(/tcp must be the object/);
    expect(bad({ udp: { bind: () => undefined } })).toThrow(/udp\.close must be a function/);
    expect(bad({ websocket: { handleUpgrade: () => undefined } })).toThrow(/websocket\.path/);
    expect(bad({ udp: { port: -1, bind: () => undefined, close: () => undefined } })).toThrow(/udp\.port/);
    // A hand-made object lacks the gateway's port listener (PORT_HOST); spreading the gateway's object keeps it.
    expect(bad({ grpc: { injectConnection: () => undefined } })).toThrow(/grpc lacks the gateway's port listener; pass gateway\.getGRPCConfig\(\)/);
    const gateway = makeGateway();
    expect(() => app.withOptions({ tcp: { ...gateway.getTCPConfig(), noDelay: false } })).not.toThrow();
  });

  it('routes each hosting key to the transports of the gateway whose object it is, through its adapter table', async () => {
    const first = makeGateway();
    const second = new ProtocolGateway({});
    second.addService('Echo', { echo: async () => ({ from: 'second' }) });
    const app = server.http().withOptions({ tcp: first.getTCPConfig(), udp: second.getUDPConfig() });
    await app.listen(0, HOST);
    try {
      const tcp = await TcpFrameClient.connect(app.port);
      try {
        const frames = await tcp.call('t1', 'Echo', 'echo', { via: 'tcp' });
        expect(frames[0]).toMatchObject({ type: FrameType.Response, payload: { id: 't1', data: { via: 'tcp' } } });
      } finally {
        tcp.close();
      }
      const udp = await udpCall(app.port, encodeFrame(FrameType.Request, { id: 'u1', service: 'Echo', method: 'echo', data: {} }));
      expect(udp).toMatchObject({ type: FrameType.Response, payload: { id: 'u1', data: { from: 'second' } } });
    } finally {
      await app.close({ graceMs: 1000 });
      await Promise.all([first.close(), second.close()]);
    }
    // An object that copies only the port listener's key has no gateway behind it: listen() says so before binding.
    const portHost = Symbol.for('fw.portHost');
    const handMade = server.http().withOptions({ tcp: { [portHost]: (first.getTCPConfig() as unknown as Record<symbol, unknown>)[portHost], handleConnection: () => undefined } as never });
    await expect(handMade.listen(0, HOST)).rejects.toThrow(/tcp lacks the gateway's adapters/);
  });

  it('reports a taken port as a listen error and stays closable', async () => {
    const gateway = makeGateway();
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, HOST, () => r()));
    const taken = (holder.address() as net.AddressInfo).port;
    const app = hostingApp(gateway);
    try {
      await expect(app.listen(taken, HOST)).rejects.toMatchObject({ code: 'EADDRINUSE' });
      await app.close();
      await app.listen(0, HOST);
      await expect(app.listen(0, HOST)).rejects.toThrow(/already listening/);
      expect(await (await fetch(`${app.url}/hello`, { signal: AbortSignal.timeout(5000) })).json()).toEqual({ hello: 'fw' });
      await app.close({ graceMs: 1000 });
    } finally {
      await new Promise((r) => holder.close(r));
      await gateway.close();
    }
  });
});
