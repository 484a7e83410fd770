/**
 * Inline `{name, methods}` services over real gRPC (JSON codec): the four call
 * kinds through createGrpcClient, and the user-service behaviour rules 1–7.
 */
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcError, GrpcStatus } from 'fw/grpc';
import { createInlineUserService, type ServiceProbe } from './fixtures/inline-user-service';
import { UserStore } from './fixtures/user-store';
import { collect, fromArray, listen, newApp, stopAll } from './fixtures/servers';

type Obj = Record<string, unknown>;
interface InlineUserClient {
  getUser(req: Obj): Promise<Obj>;
  createUser(req: Obj): Promise<Obj>;
  updateUser(req: Obj): Promise<Obj>;
  deleteUser(req: Obj): Promise<Obj>;
  listUsers(req: Obj): AsyncIterable<Obj>;
  createMultipleUsers(reqs: AsyncIterable<Obj>): Promise<Obj>;
  streamUserUpdates(req: Obj, options?: { signal?: AbortSignal }): AsyncIterable<Obj>;
  uploadUserData(chunks: AsyncIterable<Obj>): Promise<Obj>;
  chat(messages: AsyncIterable<Obj>): AsyncIterable<Obj>;
  streamData(items: AsyncIterable<Obj>): AsyncIterable<Obj>;
  close(): void;
}

const inlineClientService = {
  name: 'UserService',
  methods: {
    GetUser: 'none', CreateUser: 'none', UpdateUser: 'none', DeleteUser: 'none', ListUsers: 'server',
    CreateMultipleUsers: 'client', StreamUserUpdates: 'server', UploadUserData: 'client', Chat: 'bidirectional', StreamData: 'bidirectional',
  },
} as const;

describe('inline gRPC service (JSON codec)', () => {
  let store: UserStore;
  let probe: ServiceProbe;
  let client: InlineUserClient;

  beforeAll(async () => {
    store = new UserStore();
    probe = { subscriptionsClosed: 0, maxConcurrentRecords: 0 };
    const app = newApp().addService(createInlineUserService(store, probe));
    const address = await listen(app);
    client = createGrpcClient<InlineUserClient>({ address, credentials: 'insecure', service: inlineClientService });
  });
  afterAll(async () => {
    client.close();
    await stopAll();
  });

  it('serves unary calls and carries GrpcError codes and messages to the client', async () => {
    const created = await client.createUser({ name: 'Ada', email: 'ada@example.com', roles: ['admin'] });
    expect(created).toMatchObject({ id: expect.any(String), name: 'Ada', roles: ['admin'] });
    await expect(client.getUser({ id: created.id })).resolves.toMatchObject({ email: 'ada@example.com' });
    const missing = await client.getUser({ id: 'nope' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(GrpcError);
    expect(missing).toMatchObject({ code: GrpcStatus.NOT_FOUND, message: 'User not found' });
    await expect(client.createUser({ name: 'Ada2', email: 'ada@example.com' })).rejects.toMatchObject({ code: GrpcStatus.ALREADY_EXISTS });
    await expect(client.getUser({})).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
  });

  it('rule 7: DeleteUser answers {success: true}', async () => {
    const user = await client.createUser({ name: 'Del', email: 'del@example.com' });
    await expect(client.deleteUser({ id: user.id })).resolves.toEqual({ success: true });
    await expect(client.getUser({ id: user.id })).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  });

  it('rule 1: ListUsers pages with defaults and stops on a short batch', async () => {
    for (let i = 0; i < 24; i += 1) store.create({ name: `U${i}`, email: `u${i}@list.test` });
    const total = store.users.size;
    store.fetches.length = 0;
    const all = await collect(client.listUsers({}));
    expect(all).toHaveLength(total);
    expect(all[0]).toMatchObject({ sortedBy: 'created_at' });
    expect(store.fetches[0]).toEqual({ offset: 0, limit: 10 });
    expect(store.fetches.map((f) => f.offset)).toEqual([0, 10, 20]);

    store.fetches.length = 0;
    const page2 = await collect(client.listUsers({ page: 2, limit: 5 }));
    expect(store.fetches[0]).toEqual({ offset: 5, limit: 5 });
    expect(page2).toHaveLength(total - 5);
    // Exactly divisible: stops on the empty batch after the last full one.
    store.fetches.length = 0;
    await collect(client.listUsers({ page: 1, limit: total }));
    expect(store.fetches).toEqual([{ offset: 0, limit: total }, { offset: total, limit: total }]);
  });

  it('rule 2: CreateMultipleUsers records failing items in errors and keeps going', async () => {
    const result = await client.createMultipleUsers(
      fromArray([{ name: 'B1', email: 'b1@example.com' }, { name: '', email: 'bad' }, { name: 'B2', email: 'b2@example.com' }]),
    );
    expect(result.count).toBe(2);
    expect(result.users).toHaveLength(2);
    expect(result.errors).toEqual([{ request: { name: '', email: 'bad' }, error: 'name is required' }]);
    const clean = await client.createMultipleUsers(fromArray([{ name: 'B3', email: 'b3@example.com' }]));
    expect(clean).not.toHaveProperty('errors');
  });

  it('rule 3: UploadUserData processes a chunk concurrently and reports successRate', async () => {
    const chunks = [{ records: [{ email: 'a@x' }, { email: 'b@x' }, { nope: 1 }] }, { records: [{ email: 'c@x' }] }];
    const result = await client.uploadUserData(fromArray(chunks));
    expect(result).toEqual({ totalRecords: 4, processedRecords: 3, errorCount: 1, successRate: 0.75 });
    expect(probe.maxConcurrentRecords).toBeGreaterThan(1);
  });

  it('rule 4: Chat sends a system message first, then broadcasts each message with a new id and timestamp', async () => {
    const replies = await collect(client.chat(fromArray([{ userId: 'u1', message: 'hi' }, { userId: 'u2', message: 'yo' }])));
    expect(replies[0]).toMatchObject({ userId: 'system' });
    expect(replies.slice(1)).toEqual([
      { userId: 'u1', message: 'hi', id: expect.any(String), timestamp: expect.any(String) },
      { userId: 'u2', message: 'yo', id: expect.any(String), timestamp: expect.any(String) },
    ]);
    expect(new Set(replies.map((r) => r.id)).size).toBe(3);
    expect(Number.isNaN(Date.parse(String(replies[1]?.timestamp)))).toBe(false);
  });

  it('rule 5: StreamData yields non-empty results and then a summary', async () => {
    const out = await collect(client.streamData(fromArray([{ value: 'a' }, { value: '  ' }, { value: 'b' }])));
    expect(out).toEqual([{ result: 'A' }, { result: 'B' }, { summary: { received: 3, emitted: 2 } }]);
  });

  it('rule 6: StreamUserUpdates delivers updates and closes its subscription when the client cancels', async () => {
    const user = await client.createUser({ name: 'Watch', email: 'watch@example.com' });
    const before = probe.subscriptionsClosed;
    const controller = new AbortController();
    const updates = client.streamUserUpdates({ userId: user.id }, { signal: controller.signal });
    const iterator = updates[Symbol.asyncIterator]();
    const first = iterator.next();
    // Bounded wait for the subscription to be in place before updating.
    for (let i = 0; i < 100 && store.updates.listenerCount('update') === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    await client.updateUser({ id: user.id, name: 'Watched' });
    await expect(first).resolves.toMatchObject({ done: false, value: { userId: user.id, field: 'name', oldValue: 'Watch', newValue: 'Watched' } });
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ code: GrpcStatus.CANCELLED });
    for (let i = 0; i < 100 && probe.subscriptionsClosed === before; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(probe.subscriptionsClosed).toBe(before + 1);
    expect(store.updates.listenerCount('update')).toBe(0);
  });
});
