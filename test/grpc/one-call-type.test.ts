/**
 * `server.grpc()` middleware and the gateway's interceptors run in the same
 * call core and see one call type: service, method, streaming, request,
 * context, metadata (`get` lists every value, `getMap` the first), an
 * assignable `user` and `getPeer()`.
 */
import { ProtocolGateway, server, type DispatchCall } from 'fw';
import type { GrpcCall } from 'fw/grpc';
import { createGrpcTestClient } from 'fw/testing';
import { startedGateways } from '../gateway/support/started-gateways';
import { HOST } from '../gateway/support/clients';

interface Seen {
  service: string;
  method: string;
  streaming: string;
  request: unknown;
  tokens: unknown[];
  first: unknown;
  peer: string;
  userInHandler: unknown;
}

function inspect(call: DispatchCall | GrpcCall): Omit<Seen, 'userInHandler'> {
  return {
    service: call.service,
    method: call.method,
    streaming: call.streaming,
    request: call.request,
    tokens: call.metadata.get('X-Token'),
    first: call.metadata.getMap()['x-token'],
    peer: call.getPeer(),
  };
}

describe('one call type for middleware and interceptors', () => {
  const startGateway = startedGateways();

  it('server.grpc() middleware sees the core call surface, and the user it assigns reaches the handler', async () => {
    const app = server.grpc();
    let seen: Omit<Seen, 'userInHandler'> | undefined;
    app.use(async (call, next) => {
      seen = inspect(call);
      call.user = { id: 'u-1' };
      return next();
    });
    app.addService({ name: 'OneCall', methods: { Who: { handler: async (_request: unknown, context) => ({ user: context.authentication?.user }) } } });
    const client = createGrpcTestClient<{ Who(request: object, options?: object): Promise<{ user?: unknown }> }>('OneCall', { app });
    const reply = await client.Who({ q: 1 }, { metadata: { 'x-token': ['a', 'b'] } });
    expect(reply.user).toEqual({ id: 'u-1' });
    expect(seen).toMatchObject({ service: 'OneCall', method: 'Who', streaming: 'none', request: { q: 1 }, tokens: ['a', 'b'], first: 'a' });
    expect(seen?.peer).toMatch(/:/);
  });

  it('a gateway interceptor sees the same surface', async () => {
    const g = new ProtocolGateway({ enableUDP: false, enableTCP: false, enableWebSocket: false });
    let seen: Omit<Seen, 'userInHandler'> | undefined;
    let user: unknown;
    g.use(async (call, next) => {
      seen = inspect(call);
      call.user = 'assigned';
      user = call.user;
      return next();
    });
    g.addService('OneCall', { who: async () => ({ ok: true }) });
    const { port } = await startGateway(g);
    const res = await fetch(`http://${HOST}:${port}/api/OneCall/who`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-token': 'a' }, body: JSON.stringify({ q: 1 }), signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(200);
    expect(seen).toMatchObject({ service: 'OneCall', method: 'who', streaming: 'none', request: { q: 1 }, tokens: ['a'], first: 'a' });
    expect(seen?.peer).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(user).toBe('assigned');
  });
});
