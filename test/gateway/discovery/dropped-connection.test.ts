/**
 * An instance whose connection drops in the middle of a forwarded unary call,
 * at a chosen point, on both forwarding clients (the lean HTTP/2 one and
 * grpc-js, chosen by setting channel options):
 * - the whole reply arrived, only the status was lost: the reply is the result, and the call is not run again;
 * - response headers arrived but no reply: UNAVAILABLE, not retried (the handler may have run);
 * - nothing arrived: retried on the other instance.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createServiceDiscovery, type ServiceDiscovery } from '../../../runtime/gateway/discovery';
import { ctx, startInstance, type TestInstance } from './test-instances';

type CutAt = 'after-reply' | 'after-headers' | 'before-headers';

/** A gRPC-speaking HTTP/2 server that answers every call up to `cutAt`, then destroys the connection. */
async function startCuttingInstance(cutAt: CutAt): Promise<{ port: number; calls: number; close(): Promise<void> }> {
  const state = { calls: 0 };
  const server = http2.createServer();
  server.on('stream', (stream) => {
    state.calls++;
    stream.on('error', () => undefined);
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const cut = (): void => {
        stream.session?.destroy();
      };
      if (cutAt === 'before-headers') return cut();
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      if (cutAt === 'after-headers') return void setTimeout(cut, 20);
      const reply = Buffer.from(JSON.stringify({ instance: 'cutter' }));
      const framed = Buffer.alloc(5 + reply.length);
      framed.writeUInt32BE(reply.length, 1);
      reply.copy(framed, 5);
      stream.write(framed, () => setTimeout(cut, 20));
    });
  });
  server.on('sessionError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get calls() {
      return state.calls;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each([
  ['lean HTTP/2 client', undefined],
  ['grpc-js client', {}],
])('a connection dropped mid-call (%s)', (_name, channelOptions) => {
  let healthy: TestInstance;
  let cutter: Awaited<ReturnType<typeof startCuttingInstance>> | undefined;
  let discovery: ServiceDiscovery | undefined;

  beforeAll(async () => {
    healthy = await startInstance('healthy');
  });
  afterAll(() => healthy.stop());
  afterEach(async () => {
    await discovery?.close();
    await cutter?.close();
    for (const key of Object.keys(healthy.served)) delete healthy.served[key];
  });

  async function echoThroughCutter(cutAt: CutAt): Promise<unknown> {
    cutter = await startCuttingInstance(cutAt);
    discovery = createServiceDiscovery(
      {
        provider: 'static',
        // round_robin starts with the first instance: every call below goes to the cutter first.
        services: { EchoService: { strategy: 'round_robin', instances: [{ host: '127.0.0.1', port: cutter.port }, { host: '127.0.0.1', port: healthy.port }] } },
        forwarding: channelOptions === undefined ? {} : { channelOptions },
      },
      { descriptorFor: () => undefined },
    );
    return discovery.resolve('EchoService', 'echo')?.handler({ hello: 1 }, ctx('http'));
  }

  test('the whole reply arrived before the drop: it is the result, and the call is not run again', async () => {
    await expect(echoThroughCutter('after-reply')).resolves.toEqual({ instance: 'cutter' });
    expect(cutter?.calls).toBe(1);
    expect(healthy.served.Echo).toBeUndefined();
  });

  test('headers but no reply before the drop: UNAVAILABLE, not retried elsewhere', async () => {
    await expect(echoThroughCutter('after-headers')).rejects.toMatchObject({ code: 14 });
    expect(cutter?.calls).toBe(1);
    expect(healthy.served.Echo).toBeUndefined();
  });

  test('dropped before anything was answered: retried on the other instance', async () => {
    await expect(echoThroughCutter('before-headers')).resolves.toEqual({ instance: 'healthy', echo: { hello: 1 } });
    expect(cutter?.calls).toBe(1);
    expect(healthy.served.Echo).toBe(1);
  });
});
