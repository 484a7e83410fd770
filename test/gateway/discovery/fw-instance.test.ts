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
});
