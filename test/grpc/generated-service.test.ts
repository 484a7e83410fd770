/**
 * The fw-gen contract end to end: the checked-in generated/user.fw.ts
 * (UserServiceDescriptor, UserServiceHandlers, createUserServiceClient) served
 * by `app.addService(descriptor, handlers)` and called over loopback, plus the
 * in-process test client on the same service.
 */
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { GrpcStatus, GrpcError } from 'fw/grpc';
import { createGrpcTestClient } from 'fw/testing';
import { createUserServiceClient, UserServiceDescriptor, type UserServiceHandlers } from '../../generated/user.fw';
import type { User } from '../../generated/user';
import { collect, fromArray, listen, newApp, stopAll } from './fixtures/servers';

function user(id: string, name: string): User {
  return { id, name, email: `${name.toLowerCase()}@example.com`, phone: '', address: undefined, roles: ['user'], createdAt: timestampFromMs(Date.UTC(2024, 0, Number(id))), updatedAt: undefined };
}

describe('generated user service (fw-gen descriptor)', () => {
  const users = new Map<string, User>([['1', user('1', 'Ada')], ['2', user('2', 'Grace')], ['3', user('3', 'Edsger')]]);
  const handlers: UserServiceHandlers = {
    async getUser(request) {
      const found = users.get(request.id);
      if (found === undefined) throw new GrpcError(GrpcStatus.NOT_FOUND, 'User not found');
      return found;
    },
    async createUser(request) {
      const created = user(String(users.size + 1), request.name);
      users.set(created.id, created);
      return created;
    },
    async updateUser(request) {
      return { ...(await handlers.getUser({ id: request.id }, undefined as never)), ...(request.name === undefined ? {} : { name: request.name }) };
    },
    async deleteUser() {
      return { success: true };
    },
    async *listUsers(request) {
      const limit = request.limit || 10;
      yield* [...users.values()].slice(0, limit);
    },
    async *searchUsers(request, context) {
      if (context.protocol !== 'grpc') throw new Error('unexpected protocol');
      for (const u of users.values()) if (u.name.includes(request.query)) yield u;
    },
    async createMultipleUsers(requests) {
      const created: User[] = [];
      for await (const r of requests) created.push(user(String(100 + created.length), r.name));
      return { count: created.length, users: created, errors: [] };
    },
    async *chatWithUsers(requests) {
      yield { userId: 'system', message: 'welcome', timestamp: timestampFromMs(0) };
      for await (const m of requests) yield { ...m, message: m.message.toUpperCase() };
    },
  };
  let client: ReturnType<typeof createUserServiceClient>;

  beforeAll(async () => {
    const app = newApp().addService(UserServiceDescriptor, handlers);
    client = createUserServiceClient({ address: await listen(app), credentials: 'insecure' });
  });
  afterAll(async () => {
    client.close();
    await stopAll();
  });

  it('unary calls round-trip ts-proto messages, Timestamps (bigint seconds) included', async () => {
    const ada = await client.getUser({ id: '1' });
    expect(ada).toMatchObject({ id: '1', name: 'Ada', roles: ['user'] });
    expect(ada.createdAt).toEqual({ seconds: BigInt(Date.UTC(2024, 0, 1) / 1000), nanos: 0 });
    await expect(client.getUser({ id: '404' })).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND, message: 'User not found' });
    await expect(client.updateUser({ id: '2', name: 'Grace H.' })).resolves.toMatchObject({ name: 'Grace H.' });
    await expect(client.deleteUser({ id: '1' })).resolves.toEqual({ success: true });
  });

  it('createGrpcTestClient(Descriptor) is typed from the descriptor: PascalCase methods, partial requests, typed replies', async () => {
    const app = newApp().addService(UserServiceDescriptor, handlers);
    const inProcess = createGrpcTestClient(UserServiceDescriptor, { app });
    const grace: User = await inProcess.GetUser({ id: '2' });
    expect(grace.email).toBe('grace@example.com');
    // @ts-expect-error -- GetUserRequest has no field `nope`: the request type comes from the descriptor.
    await expect(inProcess.GetUser({ id: '404', nope: 1 })).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    const listed: string[] = [];
    for await (const u of inProcess.ListUsers({ limit: 2 })) listed.push(u.name);
    expect(listed).toHaveLength(2);
    await expect(inProcess.CreateMultipleUsers([{ name: 'Z', email: 'z@example.com' }])).resolves.toMatchObject({ count: 1 });
    const chat: string[] = [];
    for await (const m of inProcess.ChatWithUsers([{ userId: 'u', message: 'yo' }])) chat.push(m.message);
    expect(chat).toEqual(['welcome', 'YO']);
    // @ts-expect-error -- the client has the spec's PascalCase names only.
    expect(inProcess.getUser).toBeUndefined();
  });

  it('streams in every direction', async () => {
    expect((await collect(client.listUsers({ limit: 2 }))).map((u) => u.name)).toEqual(['Ada', 'Grace']);
    expect((await collect(client.searchUsers({ query: 'Eds' }))).map((u) => u.name)).toEqual(['Edsger']);
    await expect(client.createMultipleUsers(fromArray([{ name: 'X', email: 'x@example.com' }, { name: 'Y', email: 'y@example.com' }]))).resolves.toMatchObject({ count: 2 });
    const chat = await collect(client.chatWithUsers(fromArray([{ userId: 'u', message: 'hi' }])));
    expect(chat.map((m) => [m.userId, m.message])).toEqual([['system', 'welcome'], ['u', 'HI']]);
  });

  it('the in-process test client serves the same descriptor', async () => {
    const local = createGrpcTestClient<{ GetUser(r: { id: string }): Promise<User> }>('user.UserService');
    await expect(local.GetUser({ id: '3' })).resolves.toMatchObject({ name: 'Edsger' });
  });
});
