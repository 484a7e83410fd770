/**
 * Forwarding to instances that are fw's own gRPC servers (server.grpc()) with
 * inline JSON services, whose methods are named as the gateway names them
 * (`echo`, not `Echo`).
 */
import { createGrpcApplication, type GrpcApplication } from 'fw/grpc';
import { createServiceDiscovery, type ServiceDiscovery } from '../../../runtime/gateway/discovery';
import { ctx, fromArray } from './test-instances';

describe('forwarding to fw gRPC instances', () => {
  const apps: GrpcApplication[] = [];
  let discovery: ServiceDiscovery | undefined;

  afterEach(async () => {
    await discovery?.close();
    discovery = undefined;
    await Promise.all(apps.splice(0).map((a) => a.close({ timeoutMs: 1000 })));
  });

  async function fwInstance(id: string): Promise<number> {
    const app = createGrpcApplication().addService({
      name: 'EchoService',
      methods: {
        echo: { handler: async (req: Record<string, unknown>) => ({ instance: id, echo: req }) },
        count: {
          streaming: 'client',
          handler: async (reqs: AsyncIterable<{ n: number }>) => {
            let total = 0;
            for await (const r of reqs) total += r.n;
            return { instance: id, total };
          },
        },
      },
    });
    apps.push(app);
    return (await app.listen(0, '127.0.0.1')).port;
  }

  test('unary and client-streaming calls reach inline fw services by their own method names', async () => {
    const ports = [await fwInstance('a'), await fwInstance('b')];
    discovery = createServiceDiscovery(
      { provider: 'static', services: { EchoService: { methods: { count: 'client' }, instances: ports.map((port) => ({ host: '127.0.0.1', port })) } } },
      { descriptorFor: () => undefined },
    );
    const d = discovery;
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const reply = (await d.resolve('EchoService', 'echo')?.handler({ i }, ctx('http'))) as { instance: string; echo: { i: number } };
      expect(reply.echo).toEqual({ i });
      seen.push(reply.instance);
    }
    expect([...seen].sort()).toEqual(['a', 'a', 'b', 'b']);
    // The first client-streaming call learns the path; later ones use it.
    const count = d.resolve('EchoService', 'count');
    await (count?.handler(fromArray([{ n: 1 }]), ctx('http')) as Promise<unknown>).catch(() => undefined);
    expect(await count?.handler(fromArray([{ n: 1 }, { n: 2 }, { n: 3 }]), ctx('http'))).toMatchObject({ total: 6 });
  });

  test('healthCheck "grpc" uses the standard gRPC health service: NOT_SERVING leaves the rotation, SERVING returns', async () => {
    const ports = [await fwInstance('a'), await fwInstance('b')];
    discovery = createServiceDiscovery(
      {
        provider: 'static',
        services: { EchoService: { healthCheck: 'grpc:EchoService', instances: ports.map((port) => ({ host: '127.0.0.1', port })) } },
        healthCheck: { intervalMs: 60_000, unhealthyThreshold: 1, timeoutMs: 2000 },
      },
      { descriptorFor: () => undefined },
    );
    const d = discovery;
    await d.ready();
    expect(d.instances('EchoService').map((i) => i.healthy)).toEqual([true, true]);
    apps[1]?.setServingStatus('EchoService', 'NOT_SERVING');
    await d.checkHealth();
    expect(d.instances('EchoService').map((i) => i.healthy)).toEqual([true, false]);
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add(((await d.resolve('EchoService', 'echo')?.handler({}, ctx('http'))) as { instance: string }).instance);
    expect(seen).toEqual(new Set(['a']));
    apps[1]?.setServingStatus('EchoService', 'SERVING');
    await d.checkHealth();
    expect(d.instances('EchoService').map((i) => i.healthy)).toEqual([true, true]);
    // A stopped instance fails the gRPC check too.
    await apps[0]?.close({ timeoutMs: 500 });
    await d.checkHealth();
    expect(d.instances('EchoService').map((i) => i.healthy)).toEqual([false, true]);
  });
});
