/**
 * `server.grpc()` in production, as the gateway and `server.http()`: bad
 * `workers` / `drainDelay` / `handleSignals` are clear errors; `HOST` and
 * `PORT` are the defaults; with `drainDelay`, close() turns gRPC health
 * NOT_SERVING first (Check, and Watch streams told while they stay open)
 * and serves calls for that long before it drains. With `workers: 2`
 * (fixtures/workers-grpc.js) both workers answer, never the primary; and
 * SIGTERM to the primary under load turns health NOT_SERVING first, answers
 * every call begun before, ends open streams with UNAVAILABLE and exits
 * within the drain delay plus the shutdown timeout. On the 'grpc-js'
 * engine, which cannot bind with reusePort, the workers share the port
 * through node:cluster's primary and both answer too.
 */
import path from 'node:path';
import { server } from 'fw';
import { GrpcStatus, loadProtoDefinition } from 'fw/grpc';
import { createGrpcClient } from 'fw/grpc-client';
import { HOST } from '../gateway/support/clients';
import type { Outcome } from '../conformance/adapter-types';
import { waitForExit } from '../support/child-exit';
import { callOver, connectionOf, pidsOver, sleep, startWorkers, type Started } from './support/workers';

const healthProto = loadProtoDefinition(path.join(__dirname, '..', 'grpc', 'fixtures', 'health.proto'));

interface HealthClient {
  check(request: { service?: string }): Promise<{ status: string }>;
  watch(request: { service?: string }): AsyncIterable<{ status: string }>;
  close(): void;
}

/** One health Check over a channel of its own (so the kernel picks the worker); resolves the status. */
async function checkHealth(port: number, service = ''): Promise<string> {
  const health = createGrpcClient<HealthClient>({ address: `${HOST}:${port}`, service: healthProto });
  try {
    return (await health.check({ service })).status;
  } finally {
    health.close();
  }
}

function withEnv<T>(env: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return run().finally(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

describe('server.grpc() production options in one process', () => {
  it('refuses bad workers, drainDelay and handleSignals with a clear error', () => {
    expect(() => server.grpc().withOptions({ workers: 0 })).toThrow(/workers must be 'auto' or an integer from 1 to 1024, got 0/);
    expect(() => server.grpc().withOptions({ workers: 'many' as never })).toThrow(/workers must be/);
    expect(() => server.grpc().withOptions({ drainDelay: -5 })).toThrow(/drainDelay must be a non-negative number of ms, got -5/);
    expect(() => server.grpc().withOptions({ handleSignals: 'yes' as never })).toThrow(/handleSignals must be a boolean, got "yes"/);
  });

  it('binds HOST and PORT when the code names neither, and refuses a bad PORT', async () => {
    const app = server.grpc().addService({ name: 'Echo', methods: { Echo: { handler: async (request: unknown) => request } } });
    const address = await withEnv({ HOST: '127.0.0.1', PORT: '0' }, () => app.listen());
    try {
      expect(address.host).toBe('127.0.0.1');
      expect(address.port).toBeGreaterThan(0);
      expect(await checkHealth(address.port)).toBe('SERVING');
    } finally {
      await app.close();
    }
    await expect(withEnv({ PORT: 'http' }, () => server.grpc().listen())).rejects.toThrow(/PORT must be an integer from 0 to 65535, got "http"/);
  });

  it('close() with drainDelay: health NOT_SERVING and calls still served, then the drain', async () => {
    let release: () => void = () => undefined;
    const app = server.grpc().withOptions({ drainDelay: 1500, grpc: { healthWatchIntervalMs: 60_000 } });
    app.addService({
      name: 'Drain',
      methods: {
        Pid: { handler: async () => ({ pid: process.pid }) },
        // In flight when close() begins: answered, not cut.
        Held: { handler: async () => new Promise((resolve) => (release = () => resolve({ held: true }))) },
      },
    });
    const { port } = await app.listen(0, HOST);
    const health = createGrpcClient<HealthClient>({ address: `${HOST}:${port}`, service: healthProto });
    const watch = health.watch({ service: 'Drain' })[Symbol.asyncIterator]();
    await expect(watch.next()).resolves.toMatchObject({ value: { status: 'SERVING' } });
    const calls = await connectionOf('grpc', port, 0);
    const held = calls.call('Drain', 'Held', 'unary', {});
    await sleep(100);

    const closing = app.close();
    // The watcher is told at once, and its stream stays open through the delay.
    await expect(watch.next()).resolves.toMatchObject({ value: { status: 'NOT_SERVING' } });
    expect(await checkHealth(port)).toBe('NOT_SERVING');
    expect(await checkHealth(port, 'Drain')).toBe('NOT_SERVING');
    // Not ready, yet serving: a new call on a new channel is answered during the delay.
    const fresh = await connectionOf('grpc', port, 0);
    expect(await fresh.call('Drain', 'Pid', 'unary', {})).toEqual({ items: [{ pid: process.pid }] });
    fresh.close();

    release();
    expect(await held).toEqual({ items: [{ held: true }] });
    await expect(watch.next()).resolves.toMatchObject({ done: true });
    await closing;
    await expect(checkHealth(port)).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
    calls.close();
    health.close();
  });
});

describe('server.grpc() with workers: 2', () => {
  let s: Started;
  const DRAIN_DELAY_MS = 1500;
  const SHUTDOWN_TIMEOUT_MS = 500;
  /** Process start-up and exit of three processes on a busy 2-core machine. */
  const EXIT_MARGIN_MS = 5000;

  beforeAll(async () => {
    s = await startWorkers({ WORKERS: '2', DRAIN_DELAY_MS: String(DRAIN_DELAY_MS), SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) }, 'workers-grpc.js');
  }, 90_000);

  afterAll(async () => {
    await s?.stop();
  }, 30_000);

  it('is answered by both workers, never by the primary', async () => {
    const pids = await pidsOver('grpc', s, 2);
    expect(pids.size).toBe(2);
    expect(pids.has(s.child.pid!)).toBe(false);
    expect(await checkHealth(s.port)).toBe('SERVING');
  }, 60_000);

  it('on SIGTERM: health NOT_SERVING first, every call begun before answered, streams end with UNAVAILABLE, exits in time', async () => {
    const connections = await Promise.all([0, 1, 2, 3].map(() => connectionOf('grpc', s.port, 0)));
    const streams: Promise<Outcome>[] = connections.map((connection) => connection.call('Workers', 'Ticks', 'server', {}, 30_000));
    const unary = [0, 1, 2, 3].map(() => callOver('grpc', s, 'Slow', { ms: 600 }).then((r) => r, (e: Error) => ({ failed: e.message })));
    // Let every call reach its worker before the signal (streams tick every 50 ms).
    await sleep(300);

    s.child.kill('SIGTERM');
    const exited = waitForExit(s.child, DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS);
    let status = 'SERVING';
    for (let i = 0; i < 100 && status === 'SERVING'; i++) {
      status = await checkHealth(s.port);
      if (status === 'SERVING') await sleep(10);
    }
    expect(status).toBe('NOT_SERVING');
    // Not ready, yet still serving: the drain delay is the load balancer's time to stop sending.
    expect((await callOver('grpc', s, 'Pid')).pid).toEqual(expect.any(Number));

    for (const reply of unary) expect(await reply).toEqual(expect.objectContaining({ slept: 600 }));
    for (const outcome of streams) {
      const result = await outcome;
      expect([result.items.length > 0, result.error?.grpc, result.error?.code]).toEqual([true, 14, 'UNAVAILABLE']);
    }
    expect(await exited).toBe(true);
    expect(s.child.exitCode).toBe(0);
    for (const connection of connections) connection.close();
  }, 60_000);
});

describe("server.grpc() with workers: 2 on the 'grpc-js' engine", () => {
  it('shares the port through node:cluster (grpc-js binds without reusePort): both workers answer', async () => {
    const s = await startWorkers({ WORKERS: '2', ENGINE: 'grpc-js' }, 'workers-grpc.js');
    try {
      const pids = await pidsOver('grpc', s, 2);
      expect(pids.size).toBe(2);
      expect(pids.has(s.child.pid!)).toBe(false);
    } finally {
      await s.stop();
    }
    expect(s.child.exitCode).toBe(0);
  }, 90_000);
});
