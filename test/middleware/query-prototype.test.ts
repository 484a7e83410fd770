/**
 * Prototype keys in the query string: the runtime's query object has a null
 * prototype and flat keys, so nothing is polluted; assertNoPrototypeKeys
 * refuses them outright with 400 for apps that want that.
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
])('%s pollutes nothing and the server keeps serving', async (path) => {
  const r = await send(s.port, { path });
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ polluted: null, mergedPolluted: null });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('assertNoPrototypeKeys refuses ?__proto__= with 400 {error}', async () => {
  const r = await send(s.port, { path: '/strict/search?q=ada&__proto__=x' });
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: 'The query string contains a forbidden key (__proto__ or constructor.prototype)' });
  const ok = await send(s.port, { path: '/strict/search?q=ada' });
  expect(ok.json).toEqual({ q: 'ada' });
});
