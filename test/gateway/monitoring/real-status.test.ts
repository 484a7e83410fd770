/**
 * Metrics count a refused request with the status its caller sees: a request
 * breaking its buf.validate rules, and one whose JSON has the wrong types for
 * its message (refused while decoding, before the handler), are
 * VALIDATION_ERROR / 400 on every protocol, never INTERNAL / 500.
 */
import { encodeFrame, FrameType, ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { UserServiceImpl } from '../../../examples/user-service/user.service';
import { grpcJsonClient, grpcUnary, HOST, TcpFrameClient, udpCall, WsClient } from '../support/clients';
import { startedGateways } from '../support/started-gateways';

describe('metrics with the real status of refused requests', () => {
  const start = startedGateways();

  it('counts validation failures and JSON type errors as VALIDATION_ERROR on HTTP, gRPC, WebSocket, TCP and UDP', async () => {
    const gateway = new ProtocolGateway({});
    gateway.addService(UserServiceDescriptor, new UserServiceImpl());
    gateway.configureMonitoring({ metrics: { enabled: true } });
    const { port, udpPort } = await start(gateway);
    const invalid = { name: 'Ann', email: 'not an email' };
    const wrongTypes = { id: { nested: true } };

    const http = (method: string, body: unknown): Promise<Response> =>
      fetch(`http://${HOST}:${port}/api/UserService/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
    expect((await http('createUser', invalid)).status).toBe(400);
    expect((await http('getUser', wrongTypes)).status).toBe(400);

    const client = grpcJsonClient(port, 'user.UserService', { CreateUser: 'none', GetUser: 'none' });
    await expect(grpcUnary(client, 'CreateUser', invalid)).rejects.toMatchObject({ code: 3 });
    await expect(grpcUnary(client, 'GetUser', wrongTypes)).rejects.toMatchObject({ code: 3 });
    client.close();

    const ws = await WsClient.connect(`ws://${HOST}:${port}/ws`);
    for (const [id, method, data] of [['1', 'createUser', invalid], ['2', 'getUser', wrongTypes]] as const) {
      const replies = await ws.call(id, 'UserService', method, data);
      expect(replies[replies.length - 1]).toMatchObject({ type: 'error', error: { code: 'VALIDATION_ERROR' } });
    }
    ws.close();

    const tcp = await TcpFrameClient.connect(port);
    for (const [id, method, data] of [['1', 'createUser', invalid], ['2', 'getUser', wrongTypes]] as const) {
      const frames = await tcp.call(id, 'UserService', method, data);
      expect(frames[frames.length - 1]?.payload).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    }
    tcp.close();

    for (const [id, method, data] of [['1', 'createUser', invalid], ['2', 'getUser', wrongTypes]] as const) {
      const reply = await udpCall(udpPort, encodeFrame(FrameType.Request, { id, service: 'UserService', method, data }));
      expect(reply.payload).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    }

    const text = await (await fetch(`http://${HOST}:${port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    for (const protocol of ['http', 'grpc', 'websocket', 'tcp', 'udp']) {
      for (const method of ['createUser', 'getUser']) {
        expect(text).toMatch(new RegExp(`fw_gateway_requests_total\\{protocol="${protocol}",service="UserService",method="${method}",status="VALIDATION_ERROR"\\} 1`));
      }
    }
    expect(text).not.toContain('status="INTERNAL"');
    expect(text).toContain('fw_gateway_http_responses_total{status_code="400"} 2');
    expect(text).not.toContain('status_code="500"');
  });
});
