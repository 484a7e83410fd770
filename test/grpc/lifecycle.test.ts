/**
 * `server.grpc()`, listen and graceful close: running calls drain, stuck
 * calls are cancelled after the timeout, and misuse gets clear errors.
 */
import { server } from 'fw';
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcStatus } from 'fw/grpc';
import { createGrpcTestClient } from 'fw/testing';
import { listen, newApp, stopAll } from './fixtures/servers';

type Msg = Record<string, unknown>;
const slowService = (log: string[]) => ({
  name: 'Slow',
  methods: {
    Sleep: {
      handler: async (r: { ms?: number }, context: { signal: AbortSignal }) => {
        log.push(`started ${r.ms ?? 0}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, r.ms ?? 0);
          context.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            log.push('aborted');
            resolve();
          });
        });
        return { slept: r.ms };
      },
    },
  },
});
type SlowClient = { sleep(r: Msg): Promise<Msg>; close(): void };
/** Waits (bounded) until the server has started handling the call with `ms`. */
async function started(log: string[], ms: number): Promise<void> {
  for (let i = 0; i < 500 && !log.includes(`started ${ms}`); i += 1) await new Promise((r) => setTimeout(r, 10));
}
const slowClientService = { name: 'Slow', methods: { Sleep: 'none' as const } };

describe('gRPC application lifecycle', () => {
  afterAll(stopAll);

  it('server.grpc() builds a gRPC application that listens on the given port (0 = any)', async () => {
    const app = server.grpc().addService(slowService([]));
    const { port, host } = await app.listen(0, '127.0.0.1');
    expect(host).toBe('127.0.0.1');
    expect(port).toBeGreaterThan(0);
    expect(app.port).toBe(port);
    await expect(app.listen(0)).rejects.toThrow(/already listening/);
    expect(() => app.addService({ name: 'Late', methods: { A: { handler: async () => ({}) } } })).toThrow(/before listen/);
    await app.close();
    expect(app.port).toBeUndefined();
  });

  it('uses withOptions({port, hostname}) when listen() gets no arguments', async () => {
    const probe = newApp();
    const { port: free } = await probe.listen(0, '127.0.0.1');
    await probe.close();
    const app = newApp().withOptions({ port: free, hostname: '127.0.0.1' });
    await expect(app.listen()).resolves.toEqual({ host: '127.0.0.1', port: free });
    await app.close();
  });

  it('can listen again after close(), health SERVING again', async () => {
    const app = newApp().addService(slowService([]));
    await app.listen(0, '127.0.0.1');
    await app.close();
    const client = createGrpcClient<SlowClient>({ address: await listen(app), service: slowClientService });
    await expect(client.sleep({ ms: 1 })).resolves.toEqual({ slept: 1 });
    client.close();
    await expect(createGrpcTestClient<{ Check(r: Msg): Promise<Msg> }>('Health', { app }).Check({ service: 'Slow' })).resolves.toEqual({ status: 'SERVING' });
    await app.close();
  });

  it('refuses an invalid port before binding', async () => {
    const app = newApp();
    await expect(app.listen(70_000)).rejects.toThrow(RangeError);
    await expect(app.listen(-1)).rejects.toThrow(/port must be an integer/);
    await expect(app.listen(0, '127.0.0.1')).resolves.toMatchObject({ host: '127.0.0.1' });
    await app.close();
  });

  it('refuses a port that is taken without crashing', async () => {
    const first = newApp();
    const { port } = await first.listen(0, '127.0.0.1');
    const second = newApp();
    await expect(second.listen(port, '127.0.0.1')).rejects.toThrow();
    await expect(second.close()).resolves.toBeUndefined();
  });

  it('close() lets running calls finish', async () => {
    const log: string[] = [];
    const app = newApp().addService(slowService(log));
    const client = createGrpcClient<SlowClient>({ address: await listen(app), service: slowClientService });
    await client.sleep({ ms: 1 });
    const running = client.sleep({ ms: 150 });
    await started(log, 150);
    await app.close({ timeoutMs: 5000 });
    await expect(running).resolves.toEqual({ slept: 150 });
    client.close();
  });

  it('close() cancels calls still running after the timeout and waits for their handlers to settle', async () => {
    const log: string[] = [];
    const app = newApp().addService(slowService(log));
    const client = createGrpcClient<SlowClient>({ address: await listen(app), service: slowClientService });
    await client.sleep({ ms: 1 });
    const stuck = client.sleep({ ms: 60_000 }).catch((e: { code: number }) => e.code);
    await started(log, 60_000);
    await app.close({ timeoutMs: 100 });
    // close() resolves only once the cancelled handler has settled: its abort is already logged.
    expect(log.filter((entry) => entry === 'aborted')).toEqual(['aborted']);
    expect([GrpcStatus.CANCELLED, GrpcStatus.UNAVAILABLE, GrpcStatus.INTERNAL]).toContain(await stuck);
    client.close();
  });
});
