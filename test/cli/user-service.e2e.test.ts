/**
 * End to end: fw-gen's output for proto/user.proto is what is checked in,
 * the example service (the edited stub) serves it over gRPC on loopback, and
 * every RPC answers through the generated typed client.
 */
import { server } from 'fw';
import { GrpcStatus, loadProtoDefinition } from 'fw/grpc';
import { createGrpcClient } from 'fw/grpc-client';
import { createUserServiceClient, type UserServiceClient } from '../../generated/user.fw';
import type { ChatMessage, User } from '../../generated/user';
import { startUserService, type RunningUserService } from '../../examples/user-service/main';
import { UserServiceImpl } from '../../examples/user-service/user.service';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { runCli } from './support/run-cli';

async function collect<T>(items: AsyncIterable<T>, max = 1000): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}

async function* fromArray<T>(items: readonly T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

describe('user service generated from proto/user.proto', () => {
  let running: RunningUserService;
  let client: ReturnType<typeof createUserServiceClient>;

  beforeAll(async () => {
    running = await startUserService(0, '127.0.0.1');
    client = createUserServiceClient({ address: `127.0.0.1:${running.port}`, credentials: 'insecure' });
  });

  afterAll(async () => {
    client?.close();
    await running?.app.close();
  });

  it('checked-in generated/ and the example stub match what fw-gen produces from proto/', () => {
    const result = runCli(['--check', 'proto', '--stubs', 'examples/user-service']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('creates, reads, updates and deletes a user (unary RPCs)', async () => {
    const created = await client.createUser({ name: 'Ada', email: 'ada@example.com', roles: ['admin'] });
    expect(created.id).not.toBe('');
    expect(typeof created.createdAt?.seconds).toBe('bigint');
    const fetched = await client.getUser({ id: created.id });
    expect(fetched).toEqual(created);
    const updated = await client.updateUser({ id: created.id, phone: '555-0100' });
    expect(updated.phone).toBe('555-0100');
    expect(updated.name).toBe('Ada');
    await expect(client.deleteUser({ id: created.id })).resolves.toEqual({ success: true });
    await expect(client.getUser({ id: created.id })).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
  });

  it('refuses invalid requests with INVALID_ARGUMENT and duplicates with ALREADY_EXISTS', async () => {
    await expect(client.getUser({ id: '' })).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    await expect(client.createUser({ name: 'Bad', email: 'not-an-email' })).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    await expect(client.createUser({ name: '', email: 'x@example.com' })).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    await expect(client.listUsers({ limit: 1000 })[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
    await client.createUser({ name: 'Dup', email: 'dup@example.com' });
    await expect(client.createUser({ name: 'Dup2', email: 'dup@example.com' })).rejects.toMatchObject({ code: GrpcStatus.ALREADY_EXISTS });
  });

  it('streams users with ListUsers paging rules and SearchUsers (server streaming)', async () => {
    const batch = await client.createMultipleUsers(
      fromArray(Array.from({ length: 5 }, (_, i) => ({ name: `List ${i}`, email: `list${i}@example.com` }))),
    );
    expect(batch.count).toBe(5);
    const all = await collect(client.listUsers({}));
    expect(all.length).toBeGreaterThanOrEqual(5);
    // page 2 with limit 2 starts at offset 2 and keeps streaming later batches.
    const fromPage2 = await collect(client.listUsers({ page: 2, limit: 2 }));
    expect(fromPage2.map((u: User) => u.id)).toEqual(all.slice(2).map((u) => u.id));
    const found = await collect(client.searchUsers({ query: 'list3' }));
    expect(found.map((u) => u.email)).toEqual(['list3@example.com']);
  });

  it('creates many users from a client stream, skipping failing items', async () => {
    const response = await client.createMultipleUsers(
      fromArray([
        { name: 'Batch A', email: 'batch-a@example.com' },
        { name: 'Batch B', email: 'broken' },
        { name: 'Batch C', email: 'batch-c@example.com' },
      ]),
    );
    expect(response.count).toBe(2);
    expect(response.users.map((u) => u.name)).toEqual(['Batch A', 'Batch C']);
    expect(response.errors).toEqual([expect.stringMatching(/^item 2: email /)]);
  });

  it('chats over a bidirectional stream: system greeting, then broadcasts', async () => {
    const outgoing = fromArray<Partial<ChatMessage>>([
      { userId: 'u1', message: 'hello' },
      { userId: 'u1', message: 'bye' },
    ]);
    const replies = await collect(client.chatWithUsers(outgoing), 10);
    expect(replies[0]?.userId).toBe('system');
    expect(replies.slice(1).map((m) => m.message)).toEqual(['hello', 'bye']);
    expect(typeof replies[1]?.timestamp?.seconds).toBe('bigint');
  });

  it('is described by server reflection from the generated file descriptors', async () => {
    type Msg = Record<string, unknown>;
    const app = server.grpc().addService(UserServiceDescriptor, new UserServiceImpl()).enableReflection();
    const { port } = await app.listen(0, '127.0.0.1');
    const reflection = createGrpcClient<{ serverReflectionInfo(r: AsyncIterable<Msg>): AsyncIterable<Msg> }>({
      address: `127.0.0.1:${port}`,
      service: loadProtoDefinition(require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto')),
    });
    try {
      const replies = await collect(reflection.serverReflectionInfo(fromArray<Msg>([{ listServices: '' }, { fileContainingSymbol: 'user.UserService' }])), 2);
      const services = ((replies[0]?.['listServicesResponse'] as Msg)['service'] as Msg[]).map((x) => x['name']);
      expect(services).toContain('user.UserService');
      expect(replies[1]?.['fileDescriptorResponse']).toBeDefined();
    } finally {
      reflection.close();
      await app.close();
    }
  });
});
