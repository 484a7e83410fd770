/**
 * rateLimit() with the in-memory store: `max` requests pass with RateLimit-*
 * headers, the next gets 429 {error} with Retry-After; other paths and
 * option errors.
 */
import { rateLimit } from 'fw/middleware';
import { send, startApp, type Started } from './support/test-app';

type Res = { json(v: unknown): void };
let s: Started;

beforeAll(async () => {
  s = await startApp((app) => {
    app.use('/limited', rateLimit({ windowMs: 60_000, max: 3 }));
    app.get('/limited/ping', (_req: unknown, res: Res) => res.json({ ok: true }));
    app.get('/free', (_req: unknown, res: Res) => res.json({ ok: true }));
  });
});

afterAll(() => s.close());

test('max requests pass, the next is 429 with Retry-After and RateLimit-* headers', async () => {
  for (let i = 0; i < 3; i++) {
    const r = await send(s.port, { path: '/limited/ping' });
    expect(r.status).toBe(200);
    expect(r.headers['ratelimit-limit']).toBe('3');
    expect(r.headers['ratelimit-remaining']).toBe(String(2 - i));
    expect(Number(r.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(r.headers['ratelimit-policy']).toBe('3;w=60');
  }
  const r = await send(s.port, { path: '/limited/ping' });
  expect(r.status).toBe(429);
  expect(r.json).toEqual({ error: expect.stringMatching(/^Too many requests: at most 3 per 60 s/) });
  const retryAfter = Number(r.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(r.headers['ratelimit-remaining']).toBe('0');
});

test('routes outside the limiter are not counted and the server keeps serving', async () => {
  const r = await send(s.port, { path: '/free' });
  expect(r.status).toBe(200);
  expect(r.headers['ratelimit-limit']).toBeUndefined();
});

test('invalid options are refused at configuration time', () => {
  expect(() => rateLimit({ windowMs: 0 })).toThrow(TypeError);
  expect(() => rateLimit({ max: -1 })).toThrow(TypeError);
  expect(() => rateLimit({ max: 1.5 })).toThrow(TypeError);
});

test('a custom keyGenerator decides who shares a limit', async () => {
  const t = await startApp((app) => {
    app.use(rateLimit({ windowMs: 60_000, max: 1, keyGenerator: (req) => String(req.headers['x-api-key'] ?? 'anon') }));
    app.get('/', (_req: unknown, res: Res) => res.json({ ok: true }));
  });
  try {
    expect((await send(t.port, { path: '/', headers: { 'x-api-key': 'a' } })).status).toBe(200);
    expect((await send(t.port, { path: '/', headers: { 'x-api-key': 'a' } })).status).toBe(429);
    expect((await send(t.port, { path: '/', headers: { 'x-api-key': 'b' } })).status).toBe(200);
  } finally {
    await t.close();
  }
});
