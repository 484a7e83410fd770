/**
 * `npm start` serves examples/user-service through startUserGateway: one
 * port, five protocols. This checks the example itself (HTTP, UDP and TCP on
 * the same port number, gRPC through the generated client, /health and /ready).
 */
import { encodeFrame, FrameType } from 'fw';
import { createUserServiceClient } from '../../generated/user.fw';
import { startUserGateway, type RunningUserGateway } from '../../examples/user-service/gateway';
import { HOST, TcpFrameClient, udpCall } from './support/clients';

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
    const user = ((await res.json()) as { data: { id: string } }).data;
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
});
