/**
 * Redis SIGKILLed and restarted under load, with the stores set up exactly as
 * docs/middleware.md shows (a node-redis client with no 'error' listener of
 * the app's own): the process keeps serving, every request is answered
 * (rate limit fails open, or closed with 503 when configured; sessions 503),
 * none waits on the dead Redis, and both stores recover by themselves.
 */
import { createClient } from 'redis';
import { register } from 'prom-client';
import { rateLimit, redisRateLimitStore, redisSessionStore, session } from 'fw/middleware';
import { PEERS, requirePeers } from '../support/peers';
import { startRedis, type RedisProcess } from './support/redis-server';
import { send, startApp, type RawResponse, type Started, type TestApp } from './support/test-app';

type Req = { session?: Record<string, unknown> };
type Res = { status(n: number): Res; json(v: unknown): void };

/** A request guarded at 5 s: a hung request is reported as status 0, not waited on. */
async function guarded(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<RawResponse>((resolve) => {
    timer = setTimeout(() => resolve({ status: 0, headers: {}, body: Buffer.alloc(0), text: 'hung', json: undefined }), 5000);
  });
  try {
    return await Promise.race([send(port, { method, path, headers }).catch((e: Error) => ({ status: -1, headers: {}, body: Buffer.alloc(0), text: e.message, json: undefined })), hung]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

requirePeers(PEERS.redis)('Redis SIGKILLed and restarted under the stores', () => {
  let redis: RedisProcess;
  let client: ReturnType<typeof createClient>;
  let app: Started;
  let strictApp: Started;
  const warnings: string[] = [];
  let warningSpy: jest.SpyInstance | undefined;

  beforeAll(async () => {
    warningSpy = jest.spyOn(process, 'emitWarning').mockImplementation(((message: string | Error, type?: string) => {
      warnings.push(`${type ?? ''}: ${String(message)}`);
  }) as typeof process.emitWarning);
    redis = await startRedis();
    // As docs/middleware.md shows it: no error listener, default reconnect strategy.
    client = createClient({ url: redis.url });
    await client.connect();
    const routes = (a: TestApp, failOpen: boolean, prefix: string): void => {
      a.use('/api', rateLimit({ windowMs: 60_000, max: 100_000, failOpen, store: redisRateLimitStore({ client, prefix }) }));
      a.get('/api/ping', (_req: unknown, res: Res) => res.json({ ok: true }));
      a.use(session({ secret: 'outage-secret', store: redisSessionStore({ client, prefix: `${prefix}sess:` }) }));
      a.post('/login', (req: Req, res: Res) => {
        req.session!.userId = 'u1';
        res.json({ ok: true });
      });
      a.get('/me', (req: Req, res: Res) => {
        if (req.session?.userId === undefined) return res.status(401).json({ error: 'Not authenticated' });
        res.json({ userId: req.session.userId });
      });
    };
    app = await startApp((a) => routes(a, true, 'open:'));
    strictApp = await startApp((a) => routes(a, false, 'closed:'));
  }, 30_000);

  afterAll(async () => {
    warningSpy?.mockRestore();
    await app?.close();
    await strictApp?.close();
    client?.destroy();
    await redis?.stop();
  });

  async function login(port: number): Promise<string> {
    const r = await guarded(port, '/login', {}, 'POST');
    expect(r.status).toBe(200);
    return r.headers['set-cookie']![0]!.split(';')[0]!;
  }

  /** Sends `/api/ping` and `/me` from `workers` loops until `stop()`; every response is kept. */
  function load(port: number, cookie: string, workers: number): { stop(): Promise<RawResponse[]> } {
    let running = true;
    const seen: RawResponse[] = [];
    const loops = Array.from({ length: workers }, async (_, w) => {
      while (running) seen.push(await guarded(port, w % 2 === 0 ? '/api/ping' : '/me', { cookie }));
    });
    return {
      stop: async () => {
        running = false;
        await Promise.all(loops);
        return seen;
      },
    };
  }

  test('Redis SIGKILLed and restarted under load: no crash, every request answered, recovery by itself', async () => {
    const cookie = await login(app.port);
    const strictCookie = await login(strictApp.port);
    const healthy = load(app.port, cookie, 6);
    await new Promise((r) => setTimeout(r, 300));
    const before = await healthy.stop();
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((r) => r.status === 200)).toBe(true);

    await redis.kill();
    const outage = load(app.port, cookie, 6);
    const strictOutage = load(strictApp.port, strictCookie, 2);
    await new Promise((r) => setTimeout(r, 2500));
    const during = [...(await outage.stop())];
    const strictDuring = await strictOutage.stop();

    // Nothing hung (status 0) or lost its connection (-1): each answered within its bounded timeout.
    expect(during.filter((r) => r.status <= 0)).toEqual([]);
    expect(strictDuring.filter((r) => r.status <= 0)).toEqual([]);
    const statuses = new Set(during.map((r) => r.status));
    // Rate limit fails open (200 on /api/ping); sessions refuse with 503 and a clear error.
    expect([...statuses].every((s) => s === 200 || s === 503)).toBe(true);
    const sessionRefusals = during.filter((r) => r.status === 503);
    expect(sessionRefusals.length).toBeGreaterThan(0);
    expect(sessionRefusals[0]?.json).toEqual({ error: expect.stringMatching(/session store is unavailable: Redis .*retry shortly/) });
    expect(during.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    // Fail closed: the rate-limited route answers 503 too.
    const strictPings = strictDuring.filter((r) => r.json !== undefined && (r.json as { ok?: boolean }).ok === undefined);
    expect(strictPings.some((r) => r.status === 503 && /rate-limit store is unavailable/.test((r.json as { error: string }).error))).toBe(true);
    expect(strictDuring.some((r) => r.status === 200)).toBe(false);

    // The outage was reported once per store policy, and counted.
    expect(warnings.some((w) => /FwRedisWarning: Redis unavailable/.test(w))).toBe(true);
    expect(warnings.some((w) => /FwRateLimitWarning: .*let through uncounted/.test(w))).toBe(true);
    const metric = await register.getSingleMetric('fw_rate_limit_store_errors_total')?.get();
    const allowed = metric?.values.find((v) => v.labels.outcome === 'allowed')?.value ?? 0;
    const refused = metric?.values.find((v) => v.labels.outcome === 'refused')?.value ?? 0;
    expect(allowed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);

    // Redis returns (empty: no persistence): both stores work again with no help.
    await redis.restart();
    await until(async () => (await guarded(app.port, '/api/ping')).headers['ratelimit-remaining'] !== undefined, 'the rate limit to count again');
    await until(async () => (await guarded(strictApp.port, '/api/ping')).status === 200, 'the fail-closed limiter to recover');
    let fresh = '';
    await until(async () => {
      const r = await guarded(app.port, '/login', {}, 'POST');
      if (r.status !== 200) return false;
      fresh = r.headers['set-cookie']![0]!.split(';')[0]!;
      return true;
    }, 'sessions to be stored again');
    const after = load(app.port, fresh, 4);
    await new Promise((r) => setTimeout(r, 300));
    const recovered = await after.stop();
    expect(recovered.filter((r) => r.status !== 200)).toEqual([]);
    expect(warnings.some((w) => /Redis reconnected/.test(w))).toBe(true);
  }, 60_000);
});
