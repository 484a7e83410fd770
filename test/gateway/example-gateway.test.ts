/**
 * `npm start` serves examples/user-service through startUserGateway: one
 * port, five protocols. This checks the example itself (HTTP, UDP and TCP on
 * the same port number).
 */
import { encodeFrame, FrameType } from 'fw';
import { startUserGateway, type RunningUserGateway } from '../../examples/user-service/gateway';
import { HOST, TcpFrameClient, udpCall } from './support/clients';

describe('examples/user-service gateway (npm start)', () => {
  let running: RunningUserGateway;

  beforeAll(async () => {
    running = await startUserGateway(0, HOST);
  });

  afterAll(async () => {
    await running?.gateway.close();
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
});
