/**
 * `createGrpcTestClient` (spec 4.9): in process, no socket, PascalCase
 * methods, all four call kinds, GrpcError codes, deadlines and cancellation.
 */
import net from 'node:net';
import { GrpcError, GrpcStatus } from 'fw/grpc';
import { createGrpcTestClient } from 'fw/testing';
import { createInlineUserService, type ServiceProbe } from './fixtures/inline-user-service';
import { UserStore } from './fixtures/user-store';
import { collect, fromArray, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;
interface TestUserClient {
  GetUser(r: Msg): Promise<Msg>;
  CreateUser(r: Msg): Promise<Msg>;
  DeleteUser(r: Msg): Promise<Msg>;
  ListUsers(r: Msg): AsyncIterable<Msg>;
  CreateMultipleUsers(r: AsyncIterable<Msg> | Msg[]): Promise<Msg>;
  StreamUserUpdates(r: Msg, o?: { signal?: AbortSignal }): AsyncIterable<Msg>;
  UploadUserData(r: AsyncIterable<Msg>): Promise<Msg>;
  Chat(r: AsyncIterable<Msg>): AsyncIterable<Msg>;
}

describe('in-process gRPC test client', () => {
  const store = new UserStore();
  const probe: ServiceProbe = { subscriptionsClosed: 0, maxConcurrentRecords: 0 };
  const app = newApp().addService(createInlineUserService(store, probe));
  afterAll(stopAll);

  it('calls a registered service without listening on any socket', async () => {
    const connect = jest.spyOn(net.Socket.prototype, 'connect');
    const client = createGrpcTestClient<TestUserClient>('UserService');
    const created = await client.CreateUser({ name: 'Lin', email: 'lin@example.com' });
    await expect(client.GetUser({ id: created.id })).resolves.toMatchObject({ name: 'Lin' });
    await expect(client.DeleteUser({ id: created.id })).resolves.toEqual({ success: true });
    expect(connect).not.toHaveBeenCalled();
    expect(app.port).toBeUndefined();
    connect.mockRestore();
  });

  it('raises GrpcError with the handler code and message', async () => {
    const client = createGrpcTestClient<TestUserClient>('UserService', { app });
    const error = await client.GetUser({ id: 'missing' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrpcError);
    expect(error).toMatchObject({ code: GrpcStatus.NOT_FOUND, message: 'User not found' });
  });

  it('covers streaming both ways', async () => {
    const client = createGrpcTestClient<TestUserClient>('UserService');
    const batch = await client.CreateMultipleUsers([{ name: 'T1', email: 't1@x.test' }, { name: 'T2', email: 't2@x.test' }]);
    expect(batch).toMatchObject({ count: 2 });
    expect((await collect(client.ListUsers({ limit: 1 }))).length).toBe(store.users.size);
    await expect(client.UploadUserData(fromArray([{ records: [{ email: 'a' }, {}] }]))).resolves.toMatchObject({ successRate: 0.5 });
    const chat = await collect(client.Chat(fromArray([{ userId: 'z', message: 'm' }])));
    expect(chat[0]).toMatchObject({ userId: 'system' });
  });

  it('messages go through the codec, as on the wire (no shared references, JSON semantics)', async () => {
    const local = newApp().addService({ name: 'Wire', methods: { Echo: { handler: async (r: Msg) => ({ ...r, when: new Date(0) }) } } });
    const client = createGrpcTestClient<{ Echo(r: Msg): Promise<Msg> }>('Wire', { app: local });
    const input = { nested: { a: 1 } };
    const out = await client.Echo(input);
    expect(out).toEqual({ nested: { a: 1 }, when: '1970-01-01T00:00:00.000Z' });
    expect(out.nested).not.toBe(input.nested);
  });

  it('cancelling a server stream ends the handler (subscription closed)', async () => {
    const client = createGrpcTestClient<TestUserClient>('UserService');
    const before = probe.subscriptionsClosed;
    const controller = new AbortController();
    const iterator = client.StreamUserUpdates({ userId: '1' }, { signal: controller.signal })[Symbol.asyncIterator]();
    const pending = iterator.next();
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: GrpcStatus.CANCELLED });
    for (let i = 0; i < 100 && probe.subscriptionsClosed === before; i += 1) await new Promise((r) => setTimeout(r, 5));
    expect(probe.subscriptionsClosed).toBe(before + 1);
  });

  it('reports an unknown service clearly and unknown methods are absent', () => {
    expect(() => createGrpcTestClient('NoSuchService')).toThrow(/no registered service named NoSuchService/);
    const client = createGrpcTestClient<Record<string, unknown>>('UserService');
    expect(client.Nope).toBeUndefined();
  });

  it('deadlines reach the handler signal and the caller gets DEADLINE_EXCEEDED', async () => {
    let aborted = false;
    const local = newApp().addService({
      name: 'Slow',
      methods: {
        Wait: {
          handler: (_r: Msg, context) =>
            new Promise((resolve) => {
              context.signal.addEventListener('abort', () => {
                aborted = true;
                resolve({ aborted });
              });
            }),
        },
      },
    });
    const client = createGrpcTestClient<{ Wait(r: Msg, o?: { deadline?: number }): Promise<Msg> }>('Slow', { app: local });
    await expect(client.Wait({}, { deadline: 30 })).rejects.toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED });
    expect(aborted).toBe(true);
  });
});
