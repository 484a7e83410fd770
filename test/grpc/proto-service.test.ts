/**
 * The `{definition, implementation}` form with loadProtoDefinition (spec 4.6):
 * the four call kinds over protobuf, GrpcError codes, UNIMPLEMENTED for a
 * method the implementation leaves out and for unknown services/methods.
 */
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcStatus, type ProtoDefinition } from 'fw/grpc';
import { loadUserProto, protoUserService, type ProtoUserClient } from './fixtures/proto-user-service';

type Obj = Record<string, unknown>;
import { collect, fromArray, listen, newApp, stopAll } from './fixtures/servers';


describe('proto-defined gRPC service', () => {
  let proto: ProtoDefinition;
  let client: ProtoUserClient;
  let address: string;

  beforeAll(async () => {
    proto = loadUserProto();
    address = await listen(newApp().addService(protoUserService(proto)));
    client = createGrpcClient<ProtoUserClient>({ address, credentials: 'insecure', service: (proto.user as ProtoDefinition).UserService as ProtoDefinition });
  });
  afterAll(async () => {
    client.close();
    await stopAll();
  });

  it('unary: creates and reads users with camelCase fields and timestamps', async () => {
    const created = await client.createUser({ name: 'Grace', email: 'grace@example.com', roles: ['dev'] });
    expect(created).toMatchObject({ name: 'Grace', roles: ['dev'], createdAt: { seconds: expect.any(BigInt) } });
    await expect(client.getUser({ id: created.id })).resolves.toMatchObject({ email: 'grace@example.com' });
    await expect(client.getUser({ id: 'x' })).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND, message: 'User not found' });
    await expect(client.deleteUser({ id: created.id })).resolves.toEqual({ success: true });
  });

  it('server streaming, client streaming and bidirectional calls', async () => {
    const batch = await client.createMultipleUsers(fromArray([{ name: 'A', email: 'a@p.test' }, { name: '', email: 'x' }, { name: 'B', email: 'b@p.test' }]));
    expect(batch.count).toBe(2);
    const listed = await collect(client.listUsers({ limit: 1 }));
    expect(listed.map((u) => u.name)).toEqual(['A', 'B']);
    const chat = await collect(client.chatWithUsers(fromArray([{ userId: 'u', message: 'hi' }])));
    expect(chat).toEqual([expect.objectContaining({ userId: 'system' }), expect.objectContaining({ userId: 'u', message: 'echo: hi' })]);
  });

  it('a GrpcError thrown mid-stream reaches the client with its code', async () => {
    const chat = client.chatWithUsers(fromArray([{ userId: 'u', message: 'fail' }]));
    await expect(collect(chat)).rejects.toMatchObject({ code: GrpcStatus.FAILED_PRECONDITION, message: 'chat refused' });
  });

  it('a method the implementation leaves out answers UNIMPLEMENTED', async () => {
    await expect(collect(client.searchUsers({ query: 'a' }))).rejects.toMatchObject({ code: GrpcStatus.UNIMPLEMENTED });
  });

  it('unknown services and methods answer UNIMPLEMENTED', async () => {
    const stranger = createGrpcClient<{ nope(r: Obj): Promise<Obj>; getUser(r: Obj): Promise<Obj>; close(): void }>({
      address,
      service: { name: 'user.UserService', methods: { Nope: 'none' } },
    });
    const other = createGrpcClient<{ getUser(r: Obj): Promise<Obj>; close(): void }>({ address, service: { name: 'other.Missing', methods: { GetUser: 'none' } } });
    await expect(stranger.nope({})).rejects.toMatchObject({ code: GrpcStatus.UNIMPLEMENTED });
    await expect(other.getUser({})).rejects.toMatchObject({ code: GrpcStatus.UNIMPLEMENTED });
    stranger.close();
    other.close();
  });

  it('refuses definitions that are not one service', () => {
    expect(() => newApp().addService({ definition: proto, implementation: {} })).not.toThrow();
    expect(() => newApp().addService({ definition: {} as ProtoDefinition, implementation: {} })).toThrow(/holds no service/);
    expect(() => newApp().addService({ name: 'X', methods: { A: { handler: 'no' as unknown as () => unknown } } })).toThrow(/needs a handler function/);
    const app = newApp().addService(protoUserService(proto));
    expect(() => app.addService(protoUserService(proto))).toThrow(/already registered/);
  });
});
