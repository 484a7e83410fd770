/**
 * The generated browser client (generated/user.browser.ts on fw/browser)
 * from Node against a real gateway on loopback: every call kind over
 * WebSocket, unary and server streaming over fetch, typed errors, metadata,
 * cancellation and deadlines the server observes, the token provider, and
 * reconnection with backoff after the gateway goes away and comes back.
 * Node 20 has no global WebSocket, so the `ws` package's class is passed in.
 */
import WebSocket from 'ws';
import type { ProtocolGateway } from 'fw';
import { createFetchTransport, createRequestQueue, createWebSocketTransport, RpcError, type WebSocketTransport } from 'fw/browser';
import type { ChatMessage } from '../../generated/user';
import { createUserServiceBrowserClient, UserService_getUser } from '../../generated/user.browser';
import { callUnary } from 'fw/browser';
import { mintToken, startBrowserGateway, type SlowCalls } from './support/browser-gateway';

const NodeWebSocket = WebSocket as unknown as new (url: string, protocols?: string | string[]) => globalThis.WebSocket;

async function failure(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function* requests<T>(...items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

describe('generated browser client against a real gateway', () => {
  let gateway: ProtocolGateway;
  let port: number;
  let slow: SlowCalls;
  let slowCount = 0;
  let transport: WebSocketTransport;

  beforeAll(async () => {
    ({ gateway, port, slow } = await startBrowserGateway());
    transport = createWebSocketTransport({ url: `ws://127.0.0.1:${port}/ws`, WebSocket: NodeWebSocket });
  });

  afterAll(async () => {
    transport?.close();
    await gateway?.close();
  });

  describe('over WebSocket', () => {
    it('runs unary, server-streaming, client-streaming and bidi calls on one socket', async () => {
      const client = createUserServiceBrowserClient(transport);
      const [ada, listed, created] = await Promise.all([
        client.getUser({ id: '7' }),
        collect(client.listUsers({ limit: 3 })),
        client.createMultipleUsers(requests({ name: 'A', email: 'a@x.io' }, { name: 'B', email: 'b@x.io' })),
      ]);
      expect(ada).toMatchObject({ id: '7', name: 'Ada', email: '7@example.com', roles: [] });
      expect(listed.map((u) => u.id)).toEqual(['u1', 'u2', 'u3']);
      expect(created.count).toBe(2);
      expect(created.users.map((u) => u.name)).toEqual(['A', 'B']);

      // Bidi: each reply arrives before the next message is sent.
      const input = createRequestQueue<Partial<ChatMessage>>();
      const replies = client.chatWithUsers(input)[Symbol.asyncIterator]();
      input.push({ userId: 'ada', message: 'hi' });
      expect((await replies.next()).value).toMatchObject({ userId: 'echo', message: 'ada: hi' });
      input.push({ userId: 'bob', message: 'yo' });
      expect((await replies.next()).value).toMatchObject({ message: 'bob: yo' });
      input.end();
      expect((await replies.next()).done).toBe(true);
    });

    it('a single RPC constant works without the client object (what tree-shaking keeps)', async () => {
      await expect(callUnary(transport, UserService_getUser, { id: '3' })).resolves.toMatchObject({ id: '3', name: 'Ada' });
    });

    it('fails with a typed error carrying the code, message and details', async () => {
      const client = createUserServiceBrowserClient(transport);
      const error = await failure(client.getUser({ id: 'missing' }));
      expect(error).toBeInstanceOf(RpcError);
      expect(error).toMatchObject({ code: 'USER_NOT_FOUND', message: 'User missing not found', details: { id: 'missing' } });
      expect(typeof error.traceId).toBe('string');
      const seen: string[] = [];
      const streamError = await failure(
        (async () => {
          for await (const u of client.listUsers({ limit: 2, page: 99 })) seen.push(u.id);
        })(),
      );
      expect(seen).toEqual(['u1', 'u2']);
      expect(streamError).toMatchObject({ code: 'PAGE_GONE', message: 'Page 99 is gone' });
    });

    it('sends metadata to the handler', async () => {
      const client = createUserServiceBrowserClient(transport);
      await expect(client.getUser({ id: 'meta' }, { metadata: { 'x-custom': 'from-browser-client' } })).resolves.toMatchObject({ name: 'from-browser-client' });
    });

    it('cancelling aborts the handler on the server and fails the call with CANCELLED', async () => {
      const client = createUserServiceBrowserClient(transport);
      const controller = new AbortController();
      const call = failure(client.getUser({ id: 'slow' }, { signal: controller.signal }));
      await slow.started(++slowCount);
      controller.abort();
      await expect(call).resolves.toMatchObject({ code: 'CANCELLED' });
      await expect(slow.aborted(slowCount - 1)).resolves.toBe(true);
      // The socket still serves other calls.
      await expect(client.getUser({ id: '1' })).resolves.toMatchObject({ id: '1' });
    });

    it('leaving a server stream early cancels it on the server', async () => {
      const client = createUserServiceBrowserClient(transport);
      for await (const u of client.listUsers({ limit: 100 })) if (u.id === 'u2') break;
      await expect(client.getUser({ id: '2' })).resolves.toMatchObject({ id: '2' });
    });

    it('a deadline fails the call with DEADLINE_EXCEEDED and aborts the handler', async () => {
      const client = createUserServiceBrowserClient(transport);
      const error = await failure(client.getUser({ id: 'slow' }, { timeoutMs: 100 }));
      expect(error.code).toBe('DEADLINE_EXCEEDED');
      await slow.started(++slowCount);
      await expect(slow.aborted(slowCount - 1)).resolves.toBe(true);
    });

    it('sends the token provider’s token with each call', async () => {
      const anonymous = createUserServiceBrowserClient(transport);
      await expect(failure(anonymous.deleteUser({ id: '1' }))).resolves.toMatchObject({ code: 'UNAUTHENTICATED' });
      const token = await mintToken();
      let asked = 0;
      const authed = createWebSocketTransport({
        url: `ws://127.0.0.1:${port}/ws`,
        WebSocket: NodeWebSocket,
        token: async () => {
          asked++;
          return token;
        },
      });
      try {
        const client = createUserServiceBrowserClient(authed);
        await expect(client.deleteUser({ id: '1' })).resolves.toEqual({ success: true });
        await expect(client.deleteUser({ id: '2' })).resolves.toEqual({ success: true });
        expect(asked).toBe(2);
        const broken = createWebSocketTransport({ url: `ws://127.0.0.1:${port}/ws`, WebSocket: NodeWebSocket, token: () => Promise.reject(new Error('no session')) });
        await expect(failure(createUserServiceBrowserClient(broken).getUser({ id: '1' }))).resolves.toMatchObject({ code: 'UNAUTHENTICATED' });
        broken.close();
      } finally {
        authed.close();
      }
    });
  });

  describe('over fetch (HTTP/JSON and NDJSON)', () => {
    const http = () => createUserServiceBrowserClient(createFetchTransport({ baseUrl: `http://127.0.0.1:${port}` }));

    it('runs unary and server-streaming calls', async () => {
      await expect(http().getUser({ id: '9' })).resolves.toMatchObject({ id: '9', name: 'Ada' });
      expect((await collect(http().listUsers({ limit: 2 }))).map((u) => u.id)).toEqual(['u1', 'u2']);
    });

    it('fails with typed errors: unary, midway through a stream, and client streams (which need WebSocket)', async () => {
      await expect(failure(http().getUser({ id: 'missing' }))).resolves.toMatchObject({ code: 'USER_NOT_FOUND', details: { id: 'missing' } });
      const seen: string[] = [];
      const streamError = await failure(
        (async () => {
          for await (const u of http().listUsers({ limit: 2, page: 99 })) seen.push(u.id);
        })(),
      );
      expect(seen).toEqual(['u1', 'u2']);
      expect(streamError).toMatchObject({ code: 'PAGE_GONE' });
      await expect(failure(http().createMultipleUsers(requests({ name: 'x' })))).resolves.toMatchObject({ code: 'UNIMPLEMENTED' });
    });

    it('cancels and times out: the server sees the abort', async () => {
      const controller = new AbortController();
      const call = failure(http().getUser({ id: 'slow' }, { signal: controller.signal }));
      await slow.started(++slowCount);
      controller.abort();
      await expect(call).resolves.toMatchObject({ code: 'CANCELLED' });
      await expect(slow.aborted(slowCount - 1)).resolves.toBe(true);
      await expect(failure(http().getUser({ id: 'slow' }, { timeoutMs: 100 }))).resolves.toMatchObject({ code: 'DEADLINE_EXCEEDED' });
      slowCount++;
    });

    it('sends the token as a bearer credential', async () => {
      const token = await mintToken();
      const client = createUserServiceBrowserClient(createFetchTransport({ baseUrl: `http://127.0.0.1:${port}`, token: () => token }));
      await expect(client.deleteUser({ id: '1' })).resolves.toEqual({ success: true });
      await expect(failure(http().deleteUser({ id: '1' }))).resolves.toMatchObject({ code: 'UNAUTHENTICATED' });
    });

    it('a gateway that is not there is UNAVAILABLE', async () => {
      const client = createUserServiceBrowserClient(createFetchTransport({ baseUrl: 'http://127.0.0.1:1' }));
      await expect(failure(client.getUser({ id: '1' }))).resolves.toMatchObject({ code: 'UNAVAILABLE' });
    });
  });
});

describe('browser client reconnection', () => {
  it('fails in-flight calls with UNAVAILABLE when the socket drops, backs off, and reconnects for new calls', async () => {
    let { gateway, port, slow } = await startBrowserGateway();
    const attempts: number[] = [];
    const transport = createWebSocketTransport({
      url: `ws://127.0.0.1:${port}/ws`,
      WebSocket: NodeWebSocket,
      backoff: (attempt) => {
        attempts.push(attempt);
        return 20;
      },
    });
    const client = createUserServiceBrowserClient(transport);
    try {
      await expect(client.getUser({ id: '1' })).resolves.toMatchObject({ id: '1' });
      const inFlight = failure(client.getUser({ id: 'slow' }));
      await slow.started(1);
      // A short shutdown timeout cuts the socket with the slow call still running.
      await gateway.close({ timeoutMs: 50 });
      await expect(inFlight).resolves.toMatchObject({ code: 'UNAVAILABLE' });
      // While the gateway is down every new call fails fast, each attempt after a longer pause.
      await expect(failure(client.getUser({ id: '2' }))).resolves.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(failure(client.getUser({ id: '3' }))).resolves.toMatchObject({ code: 'UNAVAILABLE' });
      expect(attempts).toEqual([1, 2]);
      ({ gateway, port, slow } = await startBrowserGateway({ port }));
      await expect(client.getUser({ id: '4' })).resolves.toMatchObject({ id: '4' });
      expect(attempts).toEqual([1, 2, 3]);
      // A socket that opened resets the pause: the next drop starts again at attempt 1.
      await expect(client.getUser({ id: '5' })).resolves.toMatchObject({ id: '5' });
      expect(attempts).toEqual([1, 2, 3]);
    } finally {
      transport.close();
      await gateway.close();
    }
  });

  it('a call waiting for a socket that never opens fails with UNAVAILABLE after connectTimeoutMs', async () => {
    // A TCP listener that accepts and never answers the upgrade.
    const net = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const server = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as { port: number };
    const transport = createWebSocketTransport({ url: `ws://127.0.0.1:${port}/ws`, WebSocket: NodeWebSocket, connectTimeoutMs: 200 });
    try {
      await expect(failure(createUserServiceBrowserClient(transport).getUser({ id: '1' }))).resolves.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      transport.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
