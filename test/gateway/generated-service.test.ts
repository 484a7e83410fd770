/**
 * The generated user service (proto/user.proto → generated/user.fw.ts) served
 * by the gateway from its descriptor alone: HTTP routes from google.api.http,
 * the default POST binding, gRPC with the real protobuf encoding (a
 * proto-loader client built from the .proto, not from our code), and
 * WebSocket/UDP/TCP by service + method name.
 */
import * as grpc from '@grpc/grpc-js';
import { ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { UserServiceImpl } from '../../examples/user-service/user.service';
import { HOST, TcpFrameClient, udpCall, withTimeout, WsClient } from './support/clients';
import { jsonRequester, userServiceGrpcClient } from './support/user-service-clients';
import { encodeFrame, FrameType } from 'fw';

type Json = Record<string, unknown>;

describe('generated user service through the gateway', () => {
  let gateway: ProtocolGateway;
  let port: number;
  let base: string;

  beforeAll(async () => {
    gateway = new ProtocolGateway({});
    gateway.addService(UserServiceDescriptor, new UserServiceImpl());
    port = (await gateway.listen(0, HOST)).port as number;
    base = `http://${HOST}:${port}`;
  });

  afterAll(async () => {
    await gateway?.close();
  });

  const req = (method: string, url: string, body?: unknown): Promise<{ status: number; json: Json }> => jsonRequester(base)(method, url, body);

  it('serves the google.api.http routes: create, get, update, delete, answering the bare message', async () => {
    const created = await req('POST', '/users', { name: 'Ada', email: 'ada@example.com', roles: ['admin'] });
    expect(created.status).toBe(200);
    const user = created.json;
    expect(user).toMatchObject({ name: 'Ada', email: 'ada@example.com', roles: ['admin'] });
    expect(typeof user.id).toBe('string');
    expect(typeof user.createdAt).toBe('string');

    expect((await req('GET', `/users/${String(user.id)}`)).json).toMatchObject({ id: user.id, name: 'Ada' });
    expect((await req('PUT', `/users/${String(user.id)}`, { name: 'Ada L.' })).json).toMatchObject({ id: user.id, name: 'Ada L.' });
    expect((await req('DELETE', `/users/${String(user.id)}`)).json).toEqual({ success: true });
    const gone = await req('GET', `/users/${String(user.id)}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ error: 'NOT_FOUND' });
  });

  it('validates with the proto\'s buf.validate rules (400 with every violation in details)', async () => {
    const bad = await req('POST', '/users', { name: '', email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('VALIDATION_ERROR');
    expect(bad.json.details).toEqual([
      { field: 'name', rule: 'required', message: 'value is required' },
      { field: 'email', rule: 'string.email', message: 'must be a valid email address' },
    ]);
  });

  it('streams ListUsers over HTTP as grpc-gateway\'s {"result"} lines and serves the default POST binding in {data}', async () => {
    for (const n of ['a', 'b']) expect((await req('POST', '/api/UserService/createUser', { name: n, email: `${n}@example.com` })).json.data).toMatchObject({ name: n });
    const res = await fetch(`${base}/users?limit=10`, { signal: AbortSignal.timeout(5000) });
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { result: Json });
    expect(lines.map((l) => l.result.name)).toEqual(expect.arrayContaining(['a', 'b']));
  });

  it('serves real protobuf gRPC to a client built from proto/user.proto', async () => {
    const { client, call } = userServiceGrpcClient(HOST, port);
    const created = await call<Json>('CreateUser', { name: 'Grace', email: 'grace@example.com' });
    expect(created).toMatchObject({ name: 'Grace', email: 'grace@example.com' });
    const fetched = await call<Json>('GetUser', { id: created.id });
    expect(fetched.id).toBe(created.id);
    const missing = await call('GetUser', { id: 'nope' }).catch((e: grpc.ServiceError) => e);
    expect((missing as grpc.ServiceError).code).toBe(grpc.status.NOT_FOUND);
    const stream = client.ListUsers?.({ limit: 50 }) as grpc.ClientReadableStream<Json>;
    const names: unknown[] = [];
    await withTimeout((async () => {
      for await (const u of stream) names.push(u.name);
    })(), 5000, 'ListUsers');
    expect(names).toContain('Grace');
    client.close();
  });

  it('answers WebSocket, UDP and TCP calls by service and camelCase or PascalCase method', async () => {
    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    const [wsReply] = await ws.call('w1', 'UserService', 'createUser', { name: 'Wes', email: 'wes@example.com' });
    expect(wsReply).toMatchObject({ type: 'response', data: { name: 'Wes' } });
    const id = (wsReply?.data as Json).id;
    ws.close();

    const udp = await udpCall(port, encodeFrame(FrameType.Request, { id: 'u1', service: 'UserService', method: 'GetUser', data: { id } }));
    expect(udp).toMatchObject({ type: FrameType.Response, payload: { data: { id, name: 'Wes' } } });

    const tcp = await TcpFrameClient.connect(port);
    const frames = await tcp.call('t1', 'user.UserService', 'deleteUser', { id });
    expect(frames[0]).toMatchObject({ type: FrameType.Response, payload: { data: { success: true } } });
    tcp.close();
  });
});
