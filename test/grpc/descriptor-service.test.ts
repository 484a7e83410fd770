/**
 * The generated-descriptor form `app.addService(descriptor, handlers)`: camelCase
 * handlers `(request, context)`, the RequestContext they get, deadlines and
 * client cancellation reaching the handler, UNIMPLEMENTED for a missing handler.
 */
import { once } from 'node:events';
import type { RequestContext } from 'fw';
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcError, GrpcStatus } from 'fw/grpc';
import { createGrpcTestClient } from 'fw/testing';
import { userServiceDescriptor } from './fixtures/hand-descriptor';
import { collect, fromArray, listen, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;
interface Client {
  getUser(req: Msg, options?: { metadata?: Record<string, string>; deadline?: number }): Promise<Msg>;
  deleteUser(req: Msg, options?: { deadline?: number }): Promise<Msg>;
  listUsers(req: Msg, options?: { signal?: AbortSignal }): AsyncIterable<Msg>;
  searchUsers(req: Msg): AsyncIterable<Msg>;
  createMultipleUsers(reqs: AsyncIterable<Msg>): Promise<Msg>;
  chatWithUsers(reqs: AsyncIterable<Msg>): AsyncIterable<Msg>;
  close(): void;
}

describe('generated-descriptor service form', () => {
  const seen: { context?: RequestContext; deadlineAborted?: boolean; streamClosed: number; cancelReason?: unknown } = { streamClosed: 0 };
  const events = new (require('node:events').EventEmitter)();
  const descriptor = userServiceDescriptor();
  let client: Client;

  beforeAll(async () => {
    const handlers = {
      async getUser(request: Msg, context: RequestContext) {
        seen.context = context;
        return { id: request.id, name: `user ${String(request.id)}`, email: String(context.headers['x-tenant'] ?? '') };
      },
      async deleteUser(_request: Msg, context: RequestContext) {
        await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
        seen.deadlineAborted = context.signal.aborted;
        events.emit('deadline-seen');
        return { success: false };
      },
      async *listUsers(_request: Msg, context: RequestContext) {
        try {
          for (let i = 0; i < 1000; i += 1) {
            yield { id: String(i) };
            await new Promise((r) => setTimeout(r, 5));
          }
        } finally {
          seen.streamClosed += 1;
          seen.cancelReason = context.signal.aborted;
          events.emit('stream-closed');
        }
      },
      async createMultipleUsers(requests: AsyncIterable<Msg>) {
        const users: Msg[] = [];
        for await (const r of requests) users.push({ id: String(users.length + 1), name: r.name });
        return { count: users.length, users };
      },
      async *chatWithUsers(requests: AsyncIterable<Msg>) {
        yield { userId: 'system', message: 'hello' };
        for await (const m of requests) yield { userId: m.userId, message: String(m.message).toUpperCase() };
      },
    };
    const app = newApp().addService(descriptor, handlers);
    client = createGrpcClient<Client>({ address: await listen(app), credentials: 'insecure', service: descriptor });
  });
  afterAll(async () => {
    client.close();
    await stopAll();
  });

  it('passes the request and a filled RequestContext (protocol grpc, metadata, client info)', async () => {
    const user = await client.getUser({ id: '7' }, { metadata: { 'x-tenant': 'acme' } });
    expect(user).toMatchObject({ id: '7', name: 'user 7', email: 'acme' });
    const context = seen.context as RequestContext;
    expect(context.protocol).toBe('grpc');
    expect(context.client.address).toBe('127.0.0.1');
    expect(context.client.port).toBeGreaterThan(0);
    expect(context.client.userAgent).toMatch(/grpc-node-js/);
    expect(context.metadata).toMatchObject({ 'x-tenant': 'acme', method: 'GetUser', service: 'user.UserService' });
    expect(context.tracing.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(context.signal).toBeInstanceOf(AbortSignal);
  });

  it('reads the trace id as every transport does: x-trace-id, else traceparent; an unsafe id is replaced', async () => {
    await client.getUser({ id: '1' }, { metadata: { 'x-trace-id': 'trace-abc.1' } });
    expect((seen.context as RequestContext).tracing.traceId).toBe('trace-abc.1');
    await client.getUser({ id: '1' }, { metadata: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    expect((seen.context as RequestContext).tracing).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331' });
    await client.getUser({ id: '1' }, { metadata: { 'x-trace-id': 'not safe!' } });
    expect((seen.context as RequestContext).tracing.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('all four call kinds work through the descriptor codecs', async () => {
    await expect(client.createMultipleUsers(fromArray([{ name: 'a' }, { name: 'b' }]))).resolves.toMatchObject({ count: 2 });
    const chat = await collect(client.chatWithUsers(fromArray([{ userId: 'u', message: 'hi' }])));
    expect(chat.map((m) => m.message)).toEqual(['hello', 'HI']);
    const first = await collect(client.listUsers({}), 3);
    expect(first.map((u) => u.id)).toEqual(['0', '1', '2']);
  });

  it('aborts the handler signal when the deadline passes and the caller gets DEADLINE_EXCEEDED', async () => {
    const seenDeadline = once(events, 'deadline-seen');
    await expect(client.deleteUser({ id: '1' }, { deadline: 200 })).rejects.toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
    await seenDeadline;
    expect(seen.deadlineAborted).toBe(true);
  });

  it('client cancellation ends the server-streaming generator (its finally runs)', async () => {
    const before = seen.streamClosed;
    const controller = new AbortController();
    const closed = once(events, 'stream-closed');
    const received: Msg[] = [];
    const error = await (async () => {
      for await (const u of client.listUsers({}, { signal: controller.signal })) {
        received.push(u);
        if (received.length === 2) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrpcError);
    expect((error as GrpcError).code).toBe(GrpcStatus.CANCELLED);
    await closed;
    expect(seen.streamClosed).toBe(before + 1);
  });

  it('a method without a handler answers UNIMPLEMENTED', async () => {
    await expect(collect(client.searchUsers({}))).rejects.toMatchObject({ code: GrpcStatus.UNIMPLEMENTED });
  });

  it('the in-process test client reaches the same handlers by PascalCase name', async () => {
    const testClient = createGrpcTestClient<{ GetUser(r: Msg, o?: object): Promise<Msg> }>('user.UserService');
    await expect(testClient.GetUser({ id: '9' }, { metadata: { 'x-tenant': 'inproc' } })).resolves.toMatchObject({ id: '9', email: 'inproc' });
  });
});
