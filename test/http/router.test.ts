/** Router: mounting under a prefix, versioned routers, options, `use(path, mw)` URL rewriting — both transports. */
import { server, Router, type FwApplication } from 'fw';
import { bothWays, json } from './support/both-ways';

function buildApp(): FwApplication {
  const app = server.http();

  const v1 = new Router();
  v1.get('/users/:id', (req, res) => res.json({ version: 1, id: req.params.id }));
  v1.get('/where', (req, res) => res.json({ url: req.url, path: req.path, baseUrl: req.baseUrl, originalUrl: req.originalUrl }));
  const v2 = new Router();
  v2.get('/users/:id', (req, res) => res.json({ version: 2, id: req.params.id, name: `user-${req.params.id}` }));
  app.use('/api/v1', v1);
  app.use('/api/v2', v2);

  const merged = new Router({ mergeParams: true });
  merged.get('/posts/:postId', (req, res) => res.json({ userId: req.params.userId, postId: req.params.postId }));
  const unmerged = new Router();
  unmerged.get('/posts/:postId', (req, res) => res.json({ userId: req.params.userId ?? null, postId: req.params.postId }));
  app.use('/merged/:userId', merged);
  app.use('/unmerged/:userId', unmerged);

  const sensitive = new Router({ caseSensitive: true });
  sensitive.get('/Item', (req, res) => res.json({ item: 'Item' }));
  app.use('/cs', sensitive);

  const strict = new Router({ strict: true });
  strict.get('/slash/', (req, res) => res.json({ slash: true }));
  strict.get('/noslash', (req, res) => res.json({ slash: false }));
  app.use('/strict', strict);

  const outer = new Router();
  const inner = new Router();
  inner.get('/leaf', (req, res) => res.json({ baseUrl: req.baseUrl, path: req.path }));
  outer.use('/inner', inner);
  app.use('/outer', outer);

  const exitEarly = new Router();
  exitEarly.use((req, res, next) => next('router'));
  exitEarly.get('/x', (req, res) => res.json({ inside: true }));
  app.use('/exit', exitEarly);
  app.get('/exit/x', (req, res) => res.json({ inside: false }));

  const seen: string[] = [];
  app.use('/mw', (req, res, next) => {
    seen.push(`${req.baseUrl}|${req.path}|${req.url.replace(/^https?:\/\/[^/]+/, '')}`);
    res.setHeader('X-Seen', seen[seen.length - 1]!);
    next();
  });
  app.get('/mw/after', (req, res) => res.json({ path: req.path, baseUrl: req.baseUrl }));
  app.use(/\/re-mount-\d+/, (req, res) => res.json({ baseUrl: req.baseUrl, path: req.path }));
  app.use((req, res, next) => { res.setHeader('X-Global', 'yes'); next(); });
  app.get('/after-global', (req, res) => res.json({ ok: true }));
  return app;
}

bothWays('routers', buildApp, (client) => {
  const get = (path: string, init?: RequestInit) => client().request(path, init);

  test('one router per /api/v<N> version', async () => {
    expect(await json(await get('/api/v1/users/5'))).toEqual({ version: 1, id: '5' });
    expect(await json(await get('/api/v2/users/5'))).toEqual({ version: 2, id: '5', name: 'user-5' });
    expect((await get('/api/v3/users/5')).status).toBe(404);
  });

  test('mounted router sees the URL without the prefix', async () => {
    const body = await json<{ url: string; path: string; baseUrl: string; originalUrl: string }>(await get('/api/v1/where?q=1'));
    expect(body.path).toBe('/where');
    expect(body.baseUrl).toBe('/api/v1');
    expect(body.originalUrl).toBe('/api/v1/where?q=1');
    expect(new URL(body.url).pathname).toBe('/where');
    expect(new URL(body.url).search).toBe('?q=1');
  });

  test('mergeParams exposes the parent params', async () => {
    expect(await json(await get('/merged/u1/posts/p1'))).toEqual({ userId: 'u1', postId: 'p1' });
    expect(await json(await get('/unmerged/u1/posts/p1'))).toEqual({ userId: null, postId: 'p1' });
  });

  test('caseSensitive router', async () => {
    expect(await json(await get('/cs/Item'))).toEqual({ item: 'Item' });
    expect((await get('/cs/item')).status).toBe(404);
  });

  test('strict router distinguishes the trailing slash', async () => {
    expect(await json(await get('/strict/slash/'))).toEqual({ slash: true });
    expect((await get('/strict/slash')).status).toBe(404);
    expect(await json(await get('/strict/noslash'))).toEqual({ slash: false });
    expect((await get('/strict/noslash/')).status).toBe(404);
  });

  test('nested routers accumulate baseUrl', async () => {
    expect(await json(await get('/outer/inner/leaf'))).toEqual({ baseUrl: '/outer/inner', path: '/leaf' });
  });

  test("next('router') leaves the router", async () => {
    expect(await json(await get('/exit/x'))).toEqual({ inside: false });
  });

  test('use(path, mw) strips the prefix for the middleware and restores it after', async () => {
    const r = await get('/mw/after?z=2');
    expect(r.headers.get('x-seen')).toBe('/mw|/after|/after?z=2');
    expect(await json(r)).toEqual({ path: '/mw/after', baseUrl: '' });
  });

  test('use(path) matches on segment boundaries only', async () => {
    const r = await get('/mwx');
    expect(r.headers.get('x-seen')).toBeNull();
    expect(r.status).toBe(404);
  });

  test('use(RegExp, mw) mounts at a matching prefix', async () => {
    expect(await json(await get('/re-mount-12/rest'))).toEqual({ baseUrl: '/re-mount-12', path: '/rest' });
    expect((await get('/x/re-mount-12')).status).toBe(404);
  });

  test('use(mw) runs for later routes', async () => {
    const r = await get('/after-global');
    expect(r.headers.get('x-global')).toBe('yes');
  });

  test('405 and route queries look into mounted routers', async () => {
    const r = await get('/api/v1/users/1', { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
  });
});

describe('router queries', () => {
  const app = buildApp();
  test('getRoutes includes mounted routes with their prefix', () => {
    const paths = app.getRoutes('GET').map((r) => r.path);
    expect(paths).toContain('/api/v1/users/:id');
    expect(paths).toContain('/api/v2/users/:id');
    expect(paths).toContain('/outer/inner/leaf');
    const route = app.getRoutes().find((r) => r.path === '/api/v2/users/:id')!;
    expect(route.regexp.test('/api/v2/users/9')).toBe(true);
  });
  test('hasRoute and getAllowedMethods see mounted routes', () => {
    expect(app.hasRoute('GET', '/api/v1/users/3')).toBe(true);
    expect(app.getAllowedMethods('/api/v2/users/3')).toEqual(['GET']);
  });
  test('use() refuses non-functions', () => {
    expect(() => server.http().use('/x', 42 as never)).toThrow(/middleware functions or routers/);
    expect(() => server.http().use('/x')).toThrow(/at least one/);
  });
});
