/**
 * grpc.health.v1 on the gateway port (standard health protocol, the same
 * service server.grpc() serves): Check and Watch, overall and per service,
 * without credentials, NOT_SERVING as soon as close() begins.
 */
import path from 'node:path';
import { ProtocolGateway, ServiceError, type RequestContext } from 'fw';
import { GrpcStatus, loadProtoDefinition } from 'fw/grpc';
import { createGrpcClient } from 'fw/grpc-client';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { UserServiceImpl } from '../../examples/user-service/user.service';
import { HOST, withTimeout } from './support/clients';

const healthProto = loadProtoDefinition(path.join(__dirname, '..', 'grpc', 'fixtures', 'health.proto'));

interface HealthClient {
  check(request: { service?: string }): Promise<{ status: string }>;
  watch(request: { service?: string }, options?: { signal?: AbortSignal }): AsyncIterable<{ status: string }>;
  close(): void;
}

describe('gRPC health on the gateway port', () => {
  it('answers Check and Watch for the gateway and each service, and turns NOT_SERVING once close() begins', async () => {
    let release: () => void = () => undefined;
    const gateway = new ProtocolGateway({ enableUDP: false, grpc: { healthWatchIntervalMs: 60_000 }, shutdownTimeout: 2000 });
    gateway.addService(UserServiceDescriptor, new UserServiceImpl());
    gateway.addService('Held', {
      // A call that keeps close() draining until released (bounded by shutdownTimeout).
      hold: async (_r: unknown, ctx: RequestContext) => new Promise((resolve) => {
        release = () => resolve({});
        ctx.signal.addEventListener('abort', () => resolve({}));
      }),
    });
    // Every other call needs credentials the probe does not have; health answers anyway.
    gateway.use(async (call, next) => {
      if (call.service !== 'Held') throw new ServiceError('UNAUTHENTICATED', 'Authentication required', 401);
      return next();
    });
    const { port } = await gateway.listen(0, HOST);
    const health = createGrpcClient<HealthClient>({ address: `${HOST}:${port}`, service: healthProto });
    await expect(health.check({})).resolves.toEqual({ status: 'SERVING' });
    await expect(health.check({ service: 'user.UserService' })).resolves.toEqual({ status: 'SERVING' });
    await expect(health.check({ service: 'Held' })).resolves.toEqual({ status: 'SERVING' });
    await expect(health.check({ service: 'nope.Service' })).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });

    const watch = health.watch({ service: 'user.UserService' })[Symbol.asyncIterator]();
    await expect(watch.next()).resolves.toMatchObject({ value: { status: 'SERVING' } });

    // A call in flight keeps the drain going; health already answers NOT_SERVING.
    const held = fetch(`http://${HOST}:${port}/api/Held/hold`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(5000) }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    const closing = gateway.close();
    await expect(withTimeout(watch.next(), 5000, 'watch')).resolves.toMatchObject({ value: { status: 'NOT_SERVING' } });
    await expect(withTimeout(watch.next(), 5000, 'watch end')).resolves.toMatchObject({ done: true });
    release();
    await held;
    await closing;
    health.close();
  });
});
