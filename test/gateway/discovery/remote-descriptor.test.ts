/**
 * A generated service served only by discovered instances, known to the
 * gateway by its fw-gen descriptor (`services.UserService.descriptor`): the
 * gateway serves its google.api.http routes, validates with its proto rules
 * before forwarding, and forwards with the binary codecs on the methods' real
 * gRPC paths (`/user.UserService/GetUser`) to a generated fw instance, which
 * would answer 501 UNIMPLEMENTED to JSON guesses.
 */
import * as grpc from '@grpc/grpc-js';
import { ProtocolGateway } from 'fw';
import { createGrpcApplication, type GrpcApplication } from 'fw/grpc';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { UserServiceImpl } from '../../../examples/user-service/user.service';
import { HOST } from '../support/clients';
import { jsonRequester, userServiceGrpcClient } from '../support/user-service-clients';

type Json = Record<string, unknown>;

describe('a remote-only generated service, by descriptor', () => {
  let instance: GrpcApplication;
  let gateway: ProtocolGateway;
  let port: number;
  let base: string;
  const seenPaths: string[] = [];

  beforeAll(async () => {
    instance = createGrpcApplication().addService(UserServiceDescriptor, new UserServiceImpl());
    instance.use(async (call, next) => {
      seenPaths.push(call.path);
      return next();
    });
    const instancePort = (await instance.listen(0, HOST)).port;
    gateway = new ProtocolGateway({ enableUDP: false });
    gateway.configureServiceDiscovery({
      provider: 'static',
      services: { UserService: { descriptor: UserServiceDescriptor, instances: [{ host: HOST, port: instancePort }] } },
    });
    port = (await gateway.listen(0, HOST)).port as number;
    base = `http://${HOST}:${port}`;
  });

  afterAll(async () => {
    await gateway?.close();
    await instance?.close({ timeoutMs: 1000 });
  });

  const req = (method: string, url: string, body?: unknown): Promise<{ status: number; json: Json }> => jsonRequester(base)(method, url, body);

  it('serves the proto HTTP routes, forwarding on the real gRPC paths', async () => {
    const created = await req('POST', '/users', { name: 'Ada', email: 'ada@example.com', roles: ['admin'] });
    expect(created.status).toBe(200);
    const user = created.json;
    expect(user).toMatchObject({ name: 'Ada', email: 'ada@example.com', roles: ['admin'] });
    expect(typeof user.createdAt).toBe('string');
    expect((await req('GET', `/users/${String(user.id)}`)).json).toMatchObject({ id: user.id, name: 'Ada' });
    expect((await req('DELETE', `/users/${String(user.id)}`)).json).toEqual({ success: true });
    const gone = await req('GET', `/users/${String(user.id)}`);
    expect(gone.status).toBe(404);
    expect(seenPaths).toEqual(expect.arrayContaining(['/user.UserService/CreateUser', '/user.UserService/GetUser', '/user.UserService/DeleteUser']));
  });

  it('validates with the proto rules at the gateway: a bad request never reaches the instance', async () => {
    const before = seenPaths.length;
    const bad = await req('POST', '/users', { name: '', email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('VALIDATION_ERROR');
    expect(seenPaths.length).toBe(before);
  });

  it('forwards server streams (ListUsers as NDJSON) and serves gRPC clients with the real protobuf encoding', async () => {
    for (const n of ['a', 'b']) await req('POST', '/api/UserService/createUser', { name: n, email: `${n}@example.com` });
    const res = await fetch(`${base}/users?limit=10`, { signal: AbortSignal.timeout(5000) });
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { result: Json });
    expect(lines.map((l) => l.result.name)).toEqual(expect.arrayContaining(['a', 'b']));

    const { client, call } = userServiceGrpcClient(HOST, port);
    try {
      const created = await call<Json>('CreateUser', { name: 'Grace', email: 'grace@example.com' });
      expect((await call<Json>('GetUser', { id: created.id })).name).toBe('Grace');
      const missing = await call('GetUser', { id: 'nope' }).catch((e: grpc.ServiceError) => e);
      expect((missing as grpc.ServiceError).code).toBe(grpc.status.NOT_FOUND);
    } finally {
      client.close();
    }
  });
});
