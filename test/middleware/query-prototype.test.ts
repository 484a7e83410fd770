/**
 * Prototype keys in the query string: fw refuses them before any route runs
 * (400 {error}), and nothing is polluted; on other hosts (Express, via
 * MW_TEST_HOST=express) assertNoPrototypeKeys refuses them with 400.
 */
import { assertNoPrototypeKeys } from 'fw/middleware';
import { send, startApp, type Started } from './support/test-app';

type Req = { query: Record<string, unknown> };
type Res = { json(v: unknown): void };

let s: Started;

beforeAll(async () => {
  s = await startApp((app) => {
    app.get('/open', (req: Req, res: Res) => {
      const merged: Record<string, unknown> = Object.assign({}, req.query);
      res.json({ keys: Object.keys(req.query), polluted: ({} as Record<string, unknown>).polluted ?? null, mergedPolluted: merged.polluted ?? null });
    });
    app.use('/strict', (req: Req, _res: Res, next: (e?: unknown) => void) => {
      try {
        assertNoPrototypeKeys(req.query, 'query string');
        next();
      } catch (error) {
        next(error);
      }
    });
    app.get('/strict/search', (req: Req, res: Res) => res.json({ q: req.query.q }));
  });
});

afterAll(() => s.close());

test.each([
  '/open?__proto__[polluted]=1',
  '/open?__proto__.polluted=1',
  '/open?constructor[prototype][polluted]=1',
  '/open?__proto__=polluted',
  '/open?%5F%5Fproto%5F%5F=polluted',
])('%s is refused (fw) or pollutes nothing (other hosts), and the server keeps serving', async (path) => {
  const r = await send(s.port, { path });
  if (process.env.MW_TEST_HOST === 'express') {
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ polluted: null, mergedPolluted: null });
  } else {
    expect(r.status).toBe(400);
    expect((r.json as { error: string }).error).toMatch(/^The query string contains a forbidden key: /);
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const ok = await send(s.port, { path: '/open?q=1&proto=ok' });
  expect(ok.status).toBe(200);
});

test('assertNoPrototypeKeys refuses a parsed object holding a prototype key', () => {
  const parsed = JSON.parse('{"q":"ada","__proto__":{"polluted":1}}') as unknown;
  expect(() => assertNoPrototypeKeys(parsed, 'query string')).toThrow('The query string contains a forbidden key (__proto__ or constructor.prototype)');
});

test('a clean query passes the strict route', async () => {
  const ok = await send(s.port, { path: '/strict/search?q=ada' });
  expect(ok.json).toEqual({ q: 'ada' });
});
