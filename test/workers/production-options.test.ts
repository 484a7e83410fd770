/**
 * The production options in one process: bad `workers` / `drainDelay` /
 * env values are clear errors; `HOST` and `PORT` are the defaults; with
 * `drainDelay`, close() turns readiness false (the gateway's `/ready` and
 * gRPC health, an fw app's `readinessCheck()`) and keeps serving for that
 * long before it drains. And an fw app with `workers: 2` is answered by both.
 */
import { createProtocolGateway, readinessCheck, server } from 'fw';
import { drainDelay, workerCount } from '../../runtime/workers/production-options';
import { mergeSnapshots } from '../../runtime/workers/merge-snapshots';
import { httpCall, pidsOver, startWorkers } from './support/workers';

describe('production options', () => {
  it('refuses bad workers, drainDelay and env values with a clear error', () => {
    expect(() => createProtocolGateway({ protocols: ['http'], workers: 0 })).toThrow(/workers must be 'auto' or an integer from 1 to 1024, got 0/);
    expect(() => createProtocolGateway({ protocols: ['http'], workers: 'all' as never })).toThrow(/workers must be/);
    expect(() => createProtocolGateway({ protocols: ['http'], drainDelay: -1 })).toThrow(/drainDelay must be a non-negative number of ms, got -1/);
    expect(() => server.http().withOptions({ workers: 1.5 })).toThrow(/workers must be/);
    expect(() => workerCount(undefined, { FW_WORKERS: 'two' })).toThrow(/FW_WORKERS must be 'auto' or an integer/);
    expect(() => drainDelay(undefined, { FW_DRAIN_DELAY_MS: '5s' })).toThrow(/FW_DRAIN_DELAY_MS must be a non-negative number of ms, got "5s"/);
    expect(workerCount(undefined, { FW_WORKERS: '3' })).toBe(3);
    expect(workerCount(undefined, {})).toBeUndefined();
    expect(workerCount(2, { FW_WORKERS: '3' })).toBe(2);
    expect(workerCount('auto', {})).toBeGreaterThanOrEqual(1);
    expect(drainDelay(undefined, { FW_DRAIN_DELAY_MS: '250' })).toBe(250);
  });

  it('binds HOST and PORT when the code names neither', async () => {
    const saved = { HOST: process.env.HOST, PORT: process.env.PORT };
    process.env.HOST = '127.0.0.1';
    process.env.PORT = '0';
    const gateway = createProtocolGateway({ protocols: ['http'] });
    try {
      const address = await gateway.listen();
      expect(address.host).toBe('127.0.0.1');
      expect((await httpCall(address.port!, '/ready', undefined, 'GET')).body).toEqual({ status: 'ready', ready: true });
    } finally {
      await gateway.close();
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('gateway close() with drainDelay: /ready 503 and calls still served, then the drain', async () => {
    const gateway = createProtocolGateway({ protocols: ['http'], host: '127.0.0.1', drainDelay: 400 });
    gateway.addService('Echo', { echo: async (request: unknown) => request });
    const { port } = await gateway.listen(0);
    const closing = gateway.close();
    const ready = await httpCall(port!, '/ready', undefined, 'GET');
    expect([ready.status, ready.body]).toEqual([503, { status: 'not ready', error: 'shutting down', ready: false }]);
    expect((await httpCall(port!, '/api/Echo/echo', { a: 1 })).body).toEqual({ data: { a: 1 } });
    await closing;
    await expect(httpCall(port!, '/ready', undefined, 'GET')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('app close() with drainDelay: readinessCheck() answers 503 shutting down first', async () => {
    const app = server.http().withOptions({ drainDelay: 400 });
    app.get('/ready', readinessCheck(() => true));
    await app.listen(0, '127.0.0.1');
    expect((await httpCall(app.port, '/ready', undefined, 'GET')).status).toBe(200);
    const port = app.port;
    const closing = app.close();
    expect(app.stopping).toBe(true);
    const ready = await httpCall(port, '/ready', undefined, 'GET');
    expect([ready.status, ready.body]).toEqual([503, { status: 'not ready', error: 'shutting down' }]);
    await closing;
  });

  it('adds up getMetrics() snapshots: counts sum, means weigh by their counts, min and max keep theirs', () => {
    const a = { requests_total: { http: 1, grpc: 0 }, avg_response_time: { http: 10, grpc: 0 }, request_duration: { http: { count: 1, avg_ms: 10, min_ms: 10, max_ms: 10, total_ms: 10 } } };
    const b = { requests_total: { http: 3, grpc: 2 }, avg_response_time: { http: 2, grpc: 5 }, request_duration: { http: { count: 3, avg_ms: 2, min_ms: 1, max_ms: 4, total_ms: 6 } } };
    expect(mergeSnapshots([a, b])).toEqual({
      requests_total: { http: 4, grpc: 2 },
      avg_response_time: { http: 4, grpc: 5 },
      request_duration: { http: { count: 4, avg_ms: 4, min_ms: 1, max_ms: 10, total_ms: 16 } },
    });
  });

  it('serves an fw app from both workers with workers: 2', async () => {
    const s = await startWorkers({ WORKERS: '2' }, 'workers-app.js');
    try {
      const pids = await pidsOver('http', s, 2);
      expect(pids.size).toBe(2);
      expect(pids.has(s.child.pid!)).toBe(false);
    } finally {
      await s.stop();
    }
    expect(s.child.exitCode).toBe(0);
  }, 90_000);
});
