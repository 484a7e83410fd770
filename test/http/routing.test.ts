/** Spec 4.3 path rules, route methods, chains, HEAD, 404 and 405 — in-process and over a socket. */
import { server, type FwApplication } from 'fw';
import { bothWays, json } from './support/both-ways';

function buildApp(): FwApplication {
  const app = server.http();
  app.get('/static', (req, res) => res.json({ route: 'static' }));
  app.get('/users/:id', (req, res) => res.json({ route: 'user', id: req.params.id }));
  app.get('/users/:userId/posts/:id', (req, res) => res.json({ userId: req.params.userId, id: req.params.id }));
  app.get('/maybe/:name?', (req, res) => res.json({ name: req.params.name ?? null, has: 'name' in req.params && req.params.name !== undefined }));
  app.get('/files/*', (req, res) => res.json({ rest: req.params['*'] }));
  app.get(/^\/re\/(\d+)-(\w+)$/, (req, res) => res.json({ a: req.params[0], b: req.params[1] }));
  // Definition order: the earlier route wins even when a later one is more specific.
  app.get('/order/:any', (req, res) => res.json({ winner: 'param' }));
  app.get('/order/fixed', (req, res) => res.json({ winner: 'static' }));
  app.get('/chain', (req, res, next) => { res.setHeader('X-Step', '1'); next(); }, (req, res, next) => { res.setHeader('X-Step-2', '2'); next(); }, (req, res) => res.json({ done: true }));
  app.get('/skip', (req, res, next) => next('route'), (req, res) => res.json({ reached: 'same route' }));
  app.get('/skip', (req, res) => res.json({ reached: 'next route' }));
  app.route('/chained').get((req, res) => res.json({ m: 'GET' })).put((req, res) => res.json({ m: 'PUT' })).delete((req, res) => res.status(204).send());
  app.post('/methods', (req, res) => res.status(201).json({ m: 'POST' }));
  app.put('/methods', (req, res) => res.json({ m: 'PUT' }));
  app.patch('/methods', (req, res) => res.json({ m: 'PATCH' }));
  app.delete('/methods', (req, res) => res.status(204).send());
  app.options('/methods', (req, res) => res.status(200).json({ m: 'OPTIONS' }));
  app.head('/only-head', (req, res) => { res.setHeader('X-Head', 'yes'); res.end(); });
  app.all('/any', (req, res) => res.json({ m: req.method }));
  app.get('/allow', (req, res) => res.json({}));
  app.post('/allow', (req, res) => res.json({}));
  app.get('/trailing', (req, res) => res.json({ trailing: 'ok' }));
  app.get('/', (req, res) => res.json({ root: true }));
  app.get('/api/:kind/fixed', (req, res) => res.json({ winner: 'param', kind: req.params.kind }));
  app.get('/api/items/fixed', (req, res) => res.json({ winner: 'static' }));
  for (let i = 0; i < 300; i++) app.get(`/api/v1/resource${i}/:id`, (req, res) => res.json({ resource: i, id: req.params.id }));
  app.get('/api/v1/resource299/special', (req, res) => res.json({ special: true }));
  for (let i = 0; i < 1000; i++) app.get(`/table${i}/:id`, (req, res) => res.json({ table: i, id: req.params.id }));
  return app;
}

bothWays('routing', buildApp, (client) => {
  const get = async (path: string, init?: RequestInit) => client().request(path, init);

  test('static path', async () => {
    const r = await get('/static');
    expect(r.status).toBe(200);
    expect(await json(r)).toEqual({ route: 'static' });
  });

  test('root path', async () => {
    expect(await json(await get('/'))).toEqual({ root: true });
  });

  test('named parameter and several parameters', async () => {
    expect(await json(await get('/users/42'))).toEqual({ route: 'user', id: '42' });
    expect(await json(await get('/users/7/posts/99'))).toEqual({ userId: '7', id: '99' });
  });

  test('parameters are percent-decoded; a malformed escape is 400', async () => {
    expect(await json(await get('/users/a%20b'))).toEqual({ route: 'user', id: 'a b' });
    const bad = await get('/users/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toMatch(/decode/);
  });

  test('optional parameter is undefined when absent', async () => {
    expect(await json(await get('/maybe/ann'))).toEqual({ name: 'ann', has: true });
    expect(await json(await get('/maybe'))).toEqual({ name: null, has: false });
  });

  test('wildcard puts the remainder in params["*"]', async () => {
    expect(await json(await get('/files/a/b/c.txt'))).toEqual({ rest: 'a/b/c.txt' });
    expect(await json(await get('/files/'))).toEqual({ rest: '' });
  });

  test('RegExp route exposes capture groups as params[0], params[1]', async () => {
    expect(await json(await get('/re/12-abc'))).toEqual({ a: '12', b: 'abc' });
    expect((await get('/re/x-abc')).status).toBe(404);
  });

  test('definition order wins', async () => {
    expect(await json(await get('/order/fixed'))).toEqual({ winner: 'param' });
  });

  test('trailing slash is the same route', async () => {
    expect(await json(await get('/trailing/'))).toEqual({ trailing: 'ok' });
    expect(await json(await get('/users/5/'))).toEqual({ route: 'user', id: '5' });
  });

  test('paths are case-insensitive by default', async () => {
    expect(await json(await get('/STATIC'))).toEqual({ route: 'static' });
    expect(await json(await get('/Users/AbC'))).toEqual({ route: 'user', id: 'AbC' });
  });

  test('several handlers chained by next()', async () => {
    const r = await get('/chain');
    expect(r.headers.get('x-step')).toBe('1');
    expect(r.headers.get('x-step-2')).toBe('2');
    expect(await json(r)).toEqual({ done: true });
  });

  test("next('route') skips to the next matching route", async () => {
    expect(await json(await get('/skip'))).toEqual({ reached: 'next route' });
  });

  test('app.route(path) chains methods', async () => {
    expect(await json(await get('/chained'))).toEqual({ m: 'GET' });
    expect(await json(await get('/chained', { method: 'PUT' }))).toEqual({ m: 'PUT' });
    const del = await get('/chained', { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
  });

  test('every route method', async () => {
    const post = await get('/methods', { method: 'POST' });
    expect(post.status).toBe(201);
    expect(await json(post)).toEqual({ m: 'POST' });
    expect(await json(await get('/methods', { method: 'PUT' }))).toEqual({ m: 'PUT' });
    expect(await json(await get('/methods', { method: 'PATCH' }))).toEqual({ m: 'PATCH' });
    expect((await get('/methods', { method: 'DELETE' })).status).toBe(204);
    expect(await json(await get('/methods', { method: 'OPTIONS' }))).toEqual({ m: 'OPTIONS' });
    const head = await get('/only-head', { method: 'HEAD' });
    expect(head.headers.get('x-head')).toBe('yes');
  });

  test('all() answers every method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(await json(await get('/any', { method }))).toEqual({ m: method });
    }
  });

  test('HEAD is answered by GET routes, without a body', async () => {
    const r = await get('/users/3', { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(await r.text()).toBe('');
  });

  test('unmatched route: 404 {error, path, method}', async () => {
    const r = await get('/no/such/thing?x=1', { method: 'POST' });
    expect(r.status).toBe(404);
    expect(await json(r)).toEqual({ error: 'Not Found', path: '/no/such/thing', method: 'POST' });
  });

  test('known path, wrong method: 405 {error} with Allow', async () => {
    const r = await get('/allow', { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, POST');
    expect(typeof (await json(r)).error).toBe('string');
  });

  test('OPTIONS on a known path without an OPTIONS route lists Allow', async () => {
    const r = await get('/allow', { method: 'OPTIONS' });
    expect(r.status).toBe(204);
    expect(r.headers.get('allow')).toBe('GET, POST');
  });

  test('definition order holds across shared prefixes', async () => {
    expect(await json(await get('/api/items/fixed'))).toEqual({ winner: 'param', kind: 'items' });
    expect(await json(await get('/api/v1/resource299/special'))).toEqual({ resource: 299, id: 'special' });
    expect(await json(await get('/api/v1/resource7/x'))).toEqual({ resource: 7, id: 'x' });
  });

  test('a 1000-route table reaches its last dynamic route', async () => {
    expect(await json(await get('/table999/x'))).toEqual({ table: 999, id: 'x' });
    expect(await json(await get('/table0/y'))).toEqual({ table: 0, id: 'y' });
  });
});

describe('route queries', () => {
  const app = buildApp();

  test('getRoutes() lists RouteInfo for every route', () => {
    const routes = app.getRoutes();
    const user = routes.find((r) => r.path === '/users/:userId/posts/:id')!;
    expect(user.method).toBe('GET');
    expect(user.params).toEqual(['userId', 'id']);
    expect(user.regexp.test('/users/1/posts/2')).toBe(true);
    expect(typeof user.handler).toBe('function');
    expect(user.middleware).toEqual([]);
    const chain = routes.find((r) => r.path === '/chain')!;
    expect(chain.middleware).toHaveLength(2);
    const re = routes.find((r) => r.path.startsWith('/^'))!;
    expect(re.params).toEqual(['0', '1']);
  });

  test('getRoutes(method) filters', () => {
    const posts = app.getRoutes('post');
    expect(posts.map((r) => r.path)).toEqual(['/methods', '/any', '/allow']);
    expect(posts.every((r) => r.method === 'POST' || r.method === 'ALL')).toBe(true);
  });

  test('hasRoute', () => {
    expect(app.hasRoute('GET', '/users/:id')).toBe(true);
    expect(app.hasRoute('get', '/users/12')).toBe(true);
    expect(app.hasRoute('HEAD', '/users/12')).toBe(true);
    expect(app.hasRoute('POST', '/users/12')).toBe(false);
    expect(app.hasRoute('GET', '/nothing')).toBe(false);
  });

  test('getAllowedMethods', () => {
    expect(app.getAllowedMethods('/allow')).toEqual(['GET', 'POST']);
    expect(app.getAllowedMethods('/methods')).toEqual(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
    expect(app.getAllowedMethods('/nothing')).toEqual([]);
    expect(app.getAllowedMethods('/any')).toContain('DELETE');
  });

  test('a route needs at least one handler, and handlers must be functions', () => {
    expect(() => server.http().post('/x')).toThrow(/at least one handler/);
    expect(() => server.http().get('/x', 'nope' as never)).toThrow(/must be a function/);
  });

  test('unsupported pattern syntax is refused at registration', () => {
    expect(() => server.http().get('/a/:bad-name', () => undefined)).toThrow(/Invalid parameter name|Unsupported/);
    expect(() => server.http().get('/a/*/b', () => undefined)).toThrow(/last segment/);
    expect(() => server.http().get('/a/:id/:id', () => undefined)).toThrow(/twice/);
  });

  test('app.get(name) with one argument reads a setting', () => {
    const a = server.http().set('title', 'fw');
    expect(a.get('title')).toBe('fw');
  });
});
