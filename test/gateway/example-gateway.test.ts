/**
 * `npm start` serves examples/user-service through startUserGateway: one
 * port, five protocols. This checks the example itself (HTTP, UDP and TCP on
 * the same port number, gRPC through the generated client, /health and /ready),
 * its gRPC reflection, and runs every call `npm start` prints.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { encodeFrame, FrameType } from 'fw';
import { createGrpcClient } from 'fw/grpc-client';
import { loadProtoDefinition } from 'fw/grpc';
import { createUserServiceClient } from '../../generated/user.fw';
import { startUserGateway, type RunningUserGateway } from '../../examples/user-service/gateway';
import { sampleCalls } from '../../examples/user-service/sample-calls';
import { onPath, PEERS, requirePeers } from '../support/peers';
import { HOST, TcpFrameClient, udpCall } from './support/clients';

type Msg = Record<string, unknown>;
const root = path.resolve(__dirname, '../..');

function sh(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', command], { cwd: root, timeout: 20_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${command}\n${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

describe('examples/user-service gateway (npm start)', () => {
  let running: RunningUserGateway;

  beforeAll(async () => {
    running = await startUserGateway(0, HOST);
  });

  afterAll(async () => {
    await running?.close();
  });

  it('serves the user service on one port over HTTP, UDP and TCP', async () => {
    const { port, udpPort } = running.address;
    expect(udpPort).toBe(port);
    const res = await fetch(`http://${HOST}:${port}/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Start', email: 'start@example.com' }),
      signal: AbortSignal.timeout(5000),
    });
    const user = (await res.json()) as { id: string };
    const udp = await udpCall(port as number, encodeFrame(FrameType.Request, { id: 1, service: 'UserService', method: 'getUser', data: { id: user.id } }));
    expect(udp).toMatchObject({ type: FrameType.Response, payload: { data: { name: 'Start' } } });
    const tcp = await TcpFrameClient.connect(port as number);
    expect((await tcp.call('d', 'UserService', 'DeleteUser', { id: user.id }))[0]).toMatchObject({ payload: { data: { success: true } } });
    tcp.close();
  });

  it('answers GET /health and GET /ready (spec 4.11) on the same port', async () => {
    const { port } = running.address;
    const health = await fetch(`http://${HOST}:${port}/health`, { signal: AbortSignal.timeout(5000) });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', version: '0.1.0', timestamp: expect.any(String), uptime: expect.any(Number) });
    const ready = await fetch(`http://${HOST}:${port}/ready`, { signal: AbortSignal.timeout(5000) });
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('serves the generated client over gRPC on the same port', async () => {
    const client = createUserServiceClient({ address: `${HOST}:${running.address.port as number}`, credentials: 'insecure' });
    try {
      const created = await client.createUser({ name: 'Grpc', email: 'grpc@example.com' });
      expect((await client.getUser({ id: created.id })).name).toBe('Grpc');
    } finally {
      client.close();
    }
  });

  it("serves gRPC reflection, which the grpcurl line relies on to find user.UserService/CreateUser", async () => {
    const reflection = loadProtoDefinition(require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto'));
    const client = createGrpcClient<{ serverReflectionInfo(r: AsyncIterable<Msg>): AsyncIterable<Msg>; close(): void }>({
      address: `${HOST}:${running.address.port as number}`,
      service: reflection,
    });
    try {
      async function* ask(): AsyncGenerator<Msg> {
        yield { listServices: '' };
        yield { fileContainingSymbol: 'user.UserService' };
        yield { fileContainingSymbol: 'user.CreateUserRequest' };
      }
      const replies: Msg[] = [];
      for await (const reply of client.serverReflectionInfo(ask())) replies.push(reply);
      const services = ((replies[0]?.listServicesResponse as Msg).service as Msg[]).map((x) => x.name);
      expect(services).toContain('user.UserService');
      for (const reply of replies.slice(1)) expect(((reply.fileDescriptorResponse as Msg).fileDescriptorProto as Buffer[]).length).toBeGreaterThan(0);
    } finally {
      client.close();
    }
  });
});

requirePeers(PEERS.curl)('the calls npm start prints', () => {
  let running: RunningUserGateway;

  beforeAll(async () => {
    running = await startUserGateway(0, HOST);
  });

  afterAll(async () => {
    await running?.close();
  });

  it('prints one call per protocol, and each one works', async () => {
    const calls = sampleCalls(HOST, running.address.port as number);
    expect(calls.map((c) => c.protocol)).toEqual(['HTTP', 'gRPC', 'WebSocket', 'TCP', 'UDP']);
    const run = (protocol: string): Promise<string> => sh(calls.find((c) => c.protocol === protocol)!.command);
    expect(JSON.parse(await run('HTTP'))).toMatchObject({ name: 'Ada', email: 'ada@example.com' });
    expect(JSON.parse(await run('WebSocket'))).toMatchObject({ id: 1, type: 'response', data: { name: 'Lin' } });
    for (const [protocol, name] of [['TCP', 'Tom'], ['UDP', 'Uma']] as const) {
      const out = await run(protocol);
      expect(out.startsWith('frame type 2 ')).toBe(true);
      expect(JSON.parse(out.slice('frame type 2 '.length))).toMatchObject({ id: 1, data: { name } });
    }
    // grpcurl is not packaged for Debian; where it is installed, its line runs as printed. Either
    // way the line's method and body are sent by the generated client (reflection: test above).
    const grpcLine = calls.find((c) => c.protocol === 'gRPC')!.command;
    const [, body, target, method] = /^grpcurl -plaintext -d '(.*)' (\S+) user\.UserService\/(\w+)$/.exec(grpcLine) ?? [];
    expect([target, method]).toEqual([`${HOST}:${running.address.port as number}`, 'CreateUser']);
    const client = createUserServiceClient({ address: target!, credentials: 'insecure' });
    try {
      expect(await client.createUser(JSON.parse(body!) as { name: string; email: string })).toMatchObject({ name: 'Grace', email: 'grace@example.com' });
    } finally {
      client.close();
    }
    if (onPath('grpcurl')) expect(JSON.parse(await run('gRPC'))).toMatchObject({ name: 'Grace' });
  });
});
