/**
 * Interop: Connect-ES (@connectrpc/connect-node 2.x, a client nobody here
 * wrote) calls the gateway's one port with each of its transports —
 * Connect (JSON and binary) and gRPC-Web over HTTP/1.1 and HTTP/2 (h2c,
 * sharing grpc-js's connections), gRPC over HTTP/2 — for every call kind,
 * with errors, metadata, deadlines and auth.
 */
import { Code, ConnectError, createClient, type CallOptions, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';
import type { ProtocolGateway } from 'fw';
import { startConnectGateway, userServiceSchema } from './support/connect-gateway';

/** The generic client of a run-time DescService: methods by camelCase name. */
type UserClient = Record<string, (request: unknown, options?: CallOptions) => unknown>;

interface Row {
  name: string;
  make: (baseUrl: string) => Transport;
  clientStreams: boolean;
  bidi: boolean;
  protocol: string;
}

const ROWS: Row[] = [
  { name: 'Connect JSON (HTTP/1.1)', make: (baseUrl) => createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: false }), clientStreams: true, bidi: true, protocol: 'http:connect:json' },
  { name: 'Connect binary (HTTP/1.1)', make: (baseUrl) => createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true }), clientStreams: true, bidi: true, protocol: 'http:connect:proto' },
  { name: 'gRPC-Web binary (HTTP/1.1)', make: (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true }), clientStreams: true, bidi: true, protocol: 'grpc:grpc-web:proto' },
  { name: 'gRPC-Web JSON (HTTP/1.1)', make: (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: false }), clientStreams: true, bidi: true, protocol: 'grpc:grpc-web:json' },
  { name: 'Connect JSON (HTTP/2, the connect-node default)', make: (baseUrl) => createConnectTransport({ baseUrl, httpVersion: '2', useBinaryFormat: false }), clientStreams: true, bidi: true, protocol: 'http:connect:json' },
  { name: 'Connect binary (HTTP/2)', make: (baseUrl) => createConnectTransport({ baseUrl, httpVersion: '2' }), clientStreams: true, bidi: true, protocol: 'http:connect:proto' },
  { name: 'gRPC-Web binary (HTTP/2)', make: (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion: '2' }), clientStreams: true, bidi: true, protocol: 'grpc:grpc-web:proto' },
  { name: 'gRPC (HTTP/2, grpc-js behind the mux)', make: (baseUrl) => createGrpcTransport({ baseUrl }), clientStreams: true, bidi: true, protocol: 'grpc:undefined:undefined' },
];

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function* from<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

/** An async iterable the test feeds one item at a time. */
class Pushable<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #wake: (() => void) | undefined;
  #ended = false;

  push(item: T): void {
    this.#items.push(item);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) yield item;
      else if (this.#ended) return;
      else await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}

async function caught(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}

describe('gateway interop: Connect-ES clients', () => {
  let gateway: ProtocolGateway;
  let baseUrl: string;
  let slow: () => Promise<string>;
  const schema = userServiceSchema();

  beforeAll(async () => {
    const started = await startConnectGateway();
    gateway = started.gateway;
    slow = started.slow;
    baseUrl = `http://127.0.0.1:${started.port}`;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  describe.each(ROWS)('$name', (row) => {
    let client: UserClient;
    beforeAll(() => {
      client = createClient(schema, row.make(baseUrl)) as unknown as UserClient;
    });

    it('unary: a request in, a message out, the transport visible to the handler', async () => {
      const reply = (await client.getUser({ id: 'u1' })) as { id: string; name: string };
      expect(reply).toMatchObject({ id: 'u1', name: 'Ada' });
      const seen = (await client.getUser({ id: 'protocol' })) as { name: string };
      if (row.protocol.startsWith('grpc:undefined')) expect(seen.name).toMatch(/^grpc:/);
      else expect(seen.name).toBe(row.protocol);
    });

    it('metadata: request headers reach the handler; the trace id and the handler\'s response header and trailer come back', async () => {
      let header: Headers | undefined;
      let trailer: Headers | undefined;
      const reply = (await client.getUser({ id: 'meta' }, { headers: { 'x-custom': 'hello', 'x-trace-id': 'trace-from-es' }, onHeader: (h: Headers) => (header = h), onTrailer: (t: Headers) => (trailer = t) })) as { name: string; email: string };
      expect(reply).toMatchObject({ name: 'hello', email: 'trace-from-es@trace' });
      expect(header?.get('x-trace-id')).toBe('trace-from-es');
      // Response metadata the handler set through context.call: a header and a trailer.
      expect(header?.get('x-reply')).toBe('from-handler');
      expect(trailer?.get('x-done')).toBe('yes');
    });

    it("errors: a handler's ServiceError arrives with its gRPC/Connect code, message and fw code", async () => {
      const err = await caught(client.getUser({ id: 'missing' }) as Promise<unknown>);
      expect(err.code).toBe(Code.NotFound);
      expect(err.rawMessage).toBe('User missing not found');
      expect(err.metadata.get('x-error-code')).toBe('USER_NOT_FOUND');
    });

    it('validation: a request breaking the proto rules is invalid_argument before the handler runs', async () => {
      const err = await caught(client.createUser({ name: 'Ada', email: 'not-an-email' }) as Promise<unknown>);
      expect(err.code).toBe(Code.InvalidArgument);
    });

    it('auth: DeleteUser needs the API key; with it the call goes through', async () => {
      const err = await caught(client.deleteUser({ id: 'u1' }) as Promise<unknown>);
      expect(err.code).toBe(Code.Unauthenticated);
      expect(await client.deleteUser({ id: 'u1' }, { headers: { 'x-api-key': 'let-me-in' } })).toMatchObject({ success: true });
    });

    it('deadline: a call past its timeout fails deadline_exceeded and the handler sees its signal abort', async () => {
      const err = await caught(client.getUser({ id: 'slow' }, { timeoutMs: 150 }) as Promise<unknown>);
      expect(err.code).toBe(Code.DeadlineExceeded);
      // On a loaded machine the deadline may pass before the handler starts; then it never does.
      expect(['aborted', 'not-started']).toContain(await slow());
    });

    it('server streaming: every message in order, then the end', async () => {
      const users = await collect(client.listUsers({ limit: 3 }) as AsyncIterable<{ id: string }>);
      expect(users.map((u) => u.id)).toEqual(['u1', 'u2', 'u3']);
    });

    it('server streaming: an error after some messages arrives after them', async () => {
      const seen: string[] = [];
      const err = await caught((async () => {
        for await (const u of client.listUsers({ limit: 2, page: 99 }) as AsyncIterable<{ id: string }>) seen.push(u.id);
      })());
      expect(seen).toEqual(['u1', 'u2']);
      expect(err.code).toBe(Code.AlreadyExists);
      expect(err.rawMessage).toBe('Page 99 is gone');
    });

    it('client streaming: many requests, one reply', async () => {
      if (!row.clientStreams) return;
      const reply = (await client.createMultipleUsers(from([{ name: 'A', email: 'a@example.com' }, { name: 'B', email: 'b@example.com' }]))) as { count: number; users: { name: string }[] };
      expect(reply.count).toBe(2);
      expect(reply.users.map((u) => u.name)).toEqual(['A', 'B']);
    });

    it('bidi streaming: each reply arrives before the next request is sent (full duplex)', async () => {
      if (!row.bidi) return;
      const outbox = new Pushable<{ userId: string; message: string }>();
      const replies = (client.chatWithUsers(outbox) as AsyncIterable<{ message: string }>)[Symbol.asyncIterator]();
      outbox.push({ userId: 'ada', message: 'hi' });
      expect((await replies.next()).value).toMatchObject({ message: 'ada: hi' });
      outbox.push({ userId: 'bob', message: 'yo' });
      expect((await replies.next()).value).toMatchObject({ message: 'bob: yo' });
      outbox.end();
      expect((await replies.next()).done).toBe(true);
    });

    it('a method without a handler: unimplemented', async () => {
      const err = await caught(collect(client.searchUsers({ query: 'x' }) as AsyncIterable<unknown>));
      expect(err.code).toBe(Code.Unimplemented);
    });
  });

  it('Connect GET: a side-effect-free method (NO_SIDE_EFFECTS) is called with GET by Connect-ES', async () => {
    for (const useBinaryFormat of [false, true]) {
      const client = createClient(schema, createConnectTransport({ baseUrl, httpVersion: '1.1', useHttpGet: true, useBinaryFormat })) as unknown as UserClient;
      expect(await client.getUser({ id: 'g1' })).toMatchObject({ id: 'g1', name: 'Ada' });
      expect(await client.getUser({ id: 'verb' })).toMatchObject({ name: 'GET' });
      const err = await caught(client.getUser({ id: 'missing' }) as Promise<unknown>);
      expect(err.code).toBe(Code.NotFound);
    }
  });

  it('metrics: Connect and gRPC-Web calls are counted like every other call', async () => {
    const { gateway: g, port } = await startConnectGateway((gw) => gw.configureMonitoring({ metrics: { enabled: true } }));
    try {
      const url = `http://127.0.0.1:${port}`;
      await (createClient(schema, createConnectTransport({ baseUrl: url, httpVersion: '1.1' })) as unknown as UserClient).getUser({ id: 'a' });
      await (createClient(schema, createGrpcWebTransport({ baseUrl: url, httpVersion: '1.1' })) as unknown as UserClient).getUser({ id: 'b' });
      const metrics = g.getMetrics();
      expect(metrics.requests_total.http).toBe(1);
      expect(metrics.requests_total.grpc).toBe(1);
    } finally {
      await g.close();
    }
  });
});
