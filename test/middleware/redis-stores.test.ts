/**
 * The Redis-backed stores against a real redis-server: one rate limit held
 * across two app instances, and one session read by both.
 */
import { createClient } from 'redis';
import { rateLimit, redisRateLimitStore, redisSessionStore, session } from 'fw/middleware';
import { startRedis, type RedisProcess } from './support/redis-server';
import { send, startApp, type Started, type TestApp } from './support/test-app';
import { PEERS, requirePeers } from '../support/peers';

type Req = { session?: Record<string, unknown> };
type Res = { status(n: number): Res; json(v: unknown): void };

let redis: RedisProcess;
const clients: Array<{ quit(): Promise<unknown> }> = [];
const apps: Started[] = [];

async function connectedClient(url: string) {
  const client = createClient({ url, socket: { connectTimeout: 5000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  clients.push(client);
  return client;
}

/** One "instance": its own app and its own Redis connection, sharing the server. */
async function instance(name: string): Promise<Started> {
  const client = await connectedClient(redis.url);
  const started = await startApp((app: TestApp) => {
    app.use('/api', rateLimit({ windowMs: 60_000, max: 4, store: redisRateLimitStore({ client, prefix: 'test:rl:' }) }));
    app.get('/api/ping', (_req: unknown, res: Res) => res.json({ instance: name }));
    app.use(session({ secret: 'shared-secret', store: redisSessionStore({ client, prefix: 'test:sess:' }) }));
    app.post('/login', (req: Req, res: Res) => {
      req.session!.userId = `user-from-${name}`;
      res.json({ ok: true });
    });
    app.get('/me', (req: Req, res: Res) => {
      if (req.session?.userId === undefined) return res.status(401).json({ error: 'Not authenticated' });
      res.json({ userId: req.session.userId, servedBy: name });
    });
  });
  apps.push(started);
  return started;
}

requirePeers(PEERS.redis)('Redis-backed stores against a real redis-server', () => {
  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
    await redis.stop();
  });

  test('two instances hold one limit through Redis', async () => {
    const a = await instance('a');
    const b = await instance('b');
    const statuses: number[] = [];
    // Alternate between the instances: 4 allowed in total, not 4 each.
    for (let i = 0; i < 6; i++) {
      const target = i % 2 === 0 ? a : b;
      const r = await send(target.port, { path: '/api/ping' });
      statuses.push(r.status);
      if (r.status === 429) {
        expect(r.json).toEqual({ error: expect.stringMatching(/Too many requests/) });
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const admin = await connectedClient(redis.url);
    const keys = await admin.keys('test:rl:*');
    expect(keys.length).toBe(1);
  });

  test('a session created on one instance is read on the other', async () => {
    const [a, b] = apps as [Started, Started];
    const login = await send(a.port, { method: 'POST', path: '/login' });
    const cookie = login.headers['set-cookie']![0]!.split(';')[0]!;
    const me = await send(b.port, { path: '/me', headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.json).toEqual({ userId: 'user-from-a', servedBy: 'b' });
    const admin = await connectedClient(redis.url);
    expect((await admin.keys('test:sess:*')).length).toBe(1);
  });
});
