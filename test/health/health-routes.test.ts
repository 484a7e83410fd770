import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { server } from 'fw';
import { healthCheck, readinessCheck } from '../../runtime/health';

describe('/health and /ready handlers', () => {
  let ready: () => boolean | void | Promise<boolean | void> = () => true;
  let base = '';
  const app = server.http();

  beforeAll(async () => {
    app.get('/health', healthCheck({ version: '1.2.3' }));
    app.get('/health/min', healthCheck({ uptime: false, memory: false }));
    app.get('/ready', readinessCheck(() => ready(), { timeoutMs: 200 }));
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app.close();
  });

  test('GET /health answers status, timestamp, uptime, memory and version', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'ok', version: '1.2.3' });
    expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
    expect(typeof body.uptime).toBe('number');
    expect(body.memory).toHaveProperty('heapUsed');
    expect(await (await fetch(`${base}/health/min`)).json()).toEqual({ status: 'ok', timestamp: expect.any(String) });
  });

  test('GET /ready: 200 when the check passes, 503 with the reason when it fails, throws or hangs', async () => {
    ready = () => undefined;
    let res = await fetch(`${base}/ready`);
    expect([res.status, await res.json()]).toEqual([200, { status: 'ready' }]);

    ready = () => false;
    res = await fetch(`${base}/ready`);
    expect([res.status, await res.json()]).toEqual([503, { status: 'not ready', error: 'readiness check failed' }]);

    ready = async () => {
      throw new Error('database unreachable');
    };
    res = await fetch(`${base}/ready`);
    expect([res.status, await res.json()]).toEqual([503, { status: 'not ready', error: 'database unreachable' }]);

    ready = () => new Promise(() => undefined);
    res = await fetch(`${base}/ready`);
    expect([res.status, await res.json()]).toEqual([503, { status: 'not ready', error: 'readiness check timed out after 200 ms' }]);
  });

  test('the handlers also mount on a bare node:http server', async () => {
    const health = healthCheck();
    const plain = http.createServer((req, res) => health(req, res));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/anything`);
      expect(((await res.json()) as { status: string }).status).toBe('ok');
    } finally {
      await new Promise((r) => plain.close(r));
    }
  });
});
