/**
 * The Express surface that middleware rely on (docs/http.md, "Express
 * middleware"): `req.url` in its two forms, Express 5's content-type and
 * body rules of `res`, and the application surface reached through `req.app`
 * (`param`, settings, `locals`). Both transports.
 */
import { server, Router, type FwApplication, type FwRequest, type NextFunction } from 'fw';
import { bothWays, json } from './support/both-ways';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Counts `param()` callback runs per request, by the request's `x-run` header. */
const paramRuns = new Map<string, number>();

function buildApp(): FwApplication {
  const app = server.http().withLogger({ error: () => undefined });

  // req.url: path form in use() middleware (also after an await), full URL in route handlers.
  app.use('/url', async (req, res, next) => {
    const seen = { sync: req.url, path: req.path, baseUrl: req.baseUrl };
    await tick();
    res.locals.middleware = { ...seen, afterAwait: req.url };
    next();
  });
  app.get('/url/:id', (req, res) => res.json({ middleware: res.locals.middleware, handler: req.url, originalUrl: req.originalUrl }));
  app.get('/url-route-mw', (req, res, next) => { res.locals.seen = req.url; next(); }, (req, res) => res.json({ routeMiddleware: res.locals.seen }));
  app.use((req, res, next) => {
    if (req.url === '/old-path?x=1') req.url = '/new-path?x=1';
    next();
  });
  app.get('/new-path', (req, res) => res.json({ rewritten: req.url, query: req.query }));
  app.get('/error-url', () => { throw new Error('boom'); });
  app.use('/error-url', (error: unknown, req: FwRequest, res: import('fw').FwResponse, next: NextFunction) => {
    res.status(500).json({ errorMiddlewareUrl: req.url });
  });

  // Response rules.
  app.get('/set-type', (req, res) => res.set('Content-Type', 'application/javascript').send('var a = 1;'));
  app.get('/type-full', (req, res) => res.type('text/csv').send('a,b'));
  app.get('/type-unknown', (req, res) => res.type('nosuchext').send(Buffer.from('x')));
  app.get('/send-latin1', (req, res) => res.type('text/plain; charset=iso-8859-1').send('héllo'));
  app.get('/json-vendor', (req, res) => res.type('application/vnd.api+json').json({ data: [] }));
  app.get('/send-status/:code', (req, res) => res.sendStatus(Number(req.params.code)));
  app.get('/type-list', (req, res) => res.set('Content-Type', ['text/plain', 'text/html']).send('never'));
  app.get('/headers-after', (req, res) => {
    res.on('finish', () => { headersSeen = res.getHeaders(); lengthSeen = res.getHeader('content-length'); });
    res.json({ héllo: 'wörld' });
  });
  app.get('/go', (req, res) => res.redirect('/target path?q=%20already'));
  app.get('/signed', (req, res) => {
    (req as FwRequest & { secret?: string }).secret = 'sekrit';
    res.cookie('user', 'ann', { signed: true }).json({});
  });
  app.get('/signed-no-secret', (req, res) => res.cookie('user', 'ann', { signed: true }).json({}));

  // app.param: runs once per request and value, converts, fails, skips.
  app.param('id', (req, res, next, value) => {
    const run = String(req.headers['x-run'] ?? '');
    paramRuns.set(run, (paramRuns.get(run) ?? 0) + 1);
    if (value === 'bad') { next(Object.assign(new Error('bad id'), { statusCode: 422 })); return; }
    if (value === 'skip') { next('route'); return; }
    (req.params as Record<string, unknown>).id = /^\d+$/.test(value) ? Number(value) : value;
    next();
  });
  app.param(['a', 'b'], async (req, res, next, value, name) => {
    await tick();
    if (value === 'reject') throw Object.assign(new Error(`rejected ${name}`), { statusCode: 409 });
    (req.params as Record<string, unknown>)[name] = value.toUpperCase();
    next();
  });
  app.use('/items/:id', (req, res, next) => { res.locals.inUse = req.params.id; next(); });
  app.get('/items/:id', (req, res, next) => { res.locals.first = req.params.id; next(); }, (req, res) => {
    res.json({ id: req.params.id, type: typeof req.params.id, inUse: res.locals.inUse, first: res.locals.first });
  });
  app.get('/items/:id', (req, res) => res.json({ secondRoute: true }));
  app.get('/items/:other', (req, res) => res.json({ skipped: true, other: req.params.other }));
  app.get('/pair/:a/:b', (req, res) => res.json(req.params));
  app.get('/passes', (req, res, next) => next());
  const sub = new Router();
  sub.get('/:id', (req, res) => res.json({ subId: req.params.id, type: typeof req.params.id }));
  app.use('/sub', sub);

  // Settings and locals, read through req.app as middleware does.
  app.get('/settings', (req, res) => {
    const a = req.app!;
    res.json({
      env: a.get('env'),
      viaSet: a.set('query parser'),
      strict: a.enabled('strict routing'),
      sensitive: a.disabled('case sensitive routing'),
      trust: a.get('trust proxy'),
      custom: a.get('custom'),
      title: a.locals.title,
      sameSettings: a.locals.settings === a.settings,
    });
  });
  app.set('custom', { deep: true });
  app.locals.title = 'My App';
  return app;
}

let headersSeen: Record<string, unknown> | undefined;
let lengthSeen: unknown;

bothWays('Express surface', buildApp, (client) => {
  const get = (path: string, init?: RequestInit): Promise<Response> => client().request(path, init);

  describe('req.url', () => {
    test('use() middleware sees the path form (mount-relative, also after an await); route handlers the full URL', async () => {
      const body = await json(await get('/url/7?x=1'));
      expect(body).toEqual({
        middleware: { sync: '/7?x=1', path: '/7', baseUrl: '/url', afterAwait: '/7?x=1' },
        handler: `${client().base}/url/7?x=1`,
        originalUrl: '/url/7?x=1',
      });
    });

    test('middleware given to a route (not use()) is a route handler: full URL', async () => {
      expect(await json(await get('/url-route-mw'))).toEqual({ routeMiddleware: `${client().base}/url-route-mw` });
    });

    test('middleware compares and rewrites req.url as a path, as in Express', async () => {
      expect(await json(await get('/old-path?x=1'))).toEqual({ rewritten: `${client().base}/new-path?x=1`, query: { x: '1' } });
    });

    test('error middleware mounted with use() sees the path form too', async () => {
      const r = await get('/error-url');
      expect(r.status).toBe(500);
      expect(await json(r)).toEqual({ errorMiddlewareUrl: '/' });
    });
  });

  describe('res: Express 5 content-type and body rules', () => {
    test('set() adds the charset of a text type; send() of a string makes it utf-8', async () => {
      expect((await get('/set-type')).headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect((await get('/type-full')).headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect((await get('/send-latin1')).headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect((await get('/json-vendor')).headers.get('content-type')).toBe('application/vnd.api+json; charset=utf-8');
      expect((await get('/type-unknown')).headers.get('content-type')).toBe('application/octet-stream');
    });

    test('sendStatus() sends the reason phrase as text/plain, or the number for an unknown code', async () => {
      const notFound = await get('/send-status/404');
      expect(notFound.status).toBe(404);
      expect(notFound.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await notFound.text()).toBe('Not Found');
      expect(await (await get('/send-status/299')).text()).toBe('299');
    });

    test('a list of content types is a TypeError (500), as in Express', async () => {
      expect((await get('/type-list')).status).toBe(500);
    });

    test('getHeaders() agrees with getHeader() on content-length after send', async () => {
      headersSeen = undefined;
      await (await get('/headers-after')).text();
      for (let i = 0; i < 100 && headersSeen === undefined; i++) await tick();
      const length = String(Buffer.byteLength('{"héllo":"wörld"}'));
      expect(lengthSeen).toBe(length);
      expect(headersSeen).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'content-length': length });
    });

    test('redirect(): Express 5 body by Accept, Vary: Accept, Location encoded once', async () => {
      const text = await get('/go', { redirect: 'manual' });
      expect(text.status).toBe(302);
      expect(text.headers.get('location')).toBe('/target%20path?q=%20already');
      expect(text.headers.get('vary')).toBe('Accept');
      expect(await text.text()).toBe('Found. Redirecting to /target%20path?q=%20already');
      const html = await get('/go', { redirect: 'manual', headers: { accept: 'text/html' } });
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await html.text()).toBe('<p>Found. Redirecting to /target%20path?q=%20already</p>');
      const neither = await get('/go', { redirect: 'manual', headers: { accept: 'application/json' } });
      expect(await neither.text()).toBe('');
    });

    test('cookie(..., { signed: true }) signs with cookie-parser\'s secret, and refuses without one', async () => {
      const signed = await get('/signed');
      expect(signed.headers.getSetCookie()[0]).toMatch(/^user=s%3Aann\.[A-Za-z0-9%]+; Path=\/$/);
      expect((await get('/signed-no-secret')).status).toBe(500);
    });
  });

  describe('app.param (Express 5 semantics)', () => {
    test('runs once per request and value across use() and route layers, converting req.params', async () => {
      const run = `once-${client().transport}`;
      const body = await json(await get('/items/12', { headers: { 'x-run': run } }));
      expect(body).toEqual({ id: 12, type: 'number', inUse: 12, first: 12 });
      expect(paramRuns.get(run)).toBe(1);
    });

    test("next(error) reaches the error handlers; next('route') skips every layer with that value", async () => {
      const bad = await get('/items/bad');
      expect(bad.status).toBe(422);
      expect(await json(bad)).toEqual({ error: 'bad id' });
      expect(await json(await get('/items/skip'))).toEqual({ skipped: true, other: 'skip' });
    });

    test('several names at once; an async callback; a rejection is an error', async () => {
      expect(await json(await get('/pair/x/y'))).toEqual({ a: 'X', b: 'Y' });
      expect((await get('/pair/x/reject')).status).toBe(409);
    });

    test("a mounted router does not run the app's callbacks (each router has its own)", async () => {
      expect(await json(await get('/sub/5'))).toEqual({ subId: '5', type: 'string' });
    });
  });

  test('a GET route that passes the request on leaves a 404 (as in Express), not a 405', async () => {
    expect((await get('/passes')).status).toBe(404);
    expect((await get('/passes', { method: 'POST' })).status).toBe(405);
  });

  test('settings and locals through req.app', async () => {
    expect(await json(await get('/settings'))).toEqual({
      env: process.env.NODE_ENV ?? 'development',
      viaSet: 'simple',
      strict: false,
      sensitive: true,
      trust: false,
      custom: { deep: true },
      title: 'My App',
      sameSettings: true,
    });
  });
});

describe('application settings', () => {
  test('get(name) with one argument is a setting; with handlers, a route', () => {
    const app = server.http();
    expect(app.get('etag')).toBe(false);
    expect(app.set('json spaces', 2)).toBe(app);
    expect(app.get('json spaces')).toBe(2);
    expect(app.set('json spaces')).toBe(2);
    app.get('/x', (req, res) => res.end());
    expect(app.getRoutes().map((r) => r.path)).toEqual(['/x']);
  });

  test('enable/disable/enabled/disabled', () => {
    const app = server.http();
    expect(app.enabled('feature')).toBe(false);
    expect(app.disabled('feature')).toBe(true);
    app.enable('feature');
    expect(app.enabled('feature')).toBe(true);
    app.disable('feature');
    expect(app.get('feature')).toBe(false);
    app.enable('trust proxy');
    expect(app.trustProxy).not.toBeNull();
  });

  test("'strict routing' and 'case sensitive routing' apply before the first route, and throw after", async () => {
    const app = server.http().enable('strict routing').enable('case sensitive routing');
    app.get('/Users/', (req, res) => res.json({ ok: true }));
    const fetchApp = app.createFetchHandler();
    expect((await fetchApp(new Request('http://localhost/Users/'))).status).toBe(200);
    expect((await fetchApp(new Request('http://localhost/Users'))).status).toBe(404);
    expect((await fetchApp(new Request('http://localhost/users/'))).status).toBe(404);
    expect(() => app.disable('strict routing')).toThrow(/before the first route/);
    expect(() => app.enable('strict routing')).not.toThrow();
  });

  test('bad arguments are TypeErrors', () => {
    const app = server.http();
    expect(() => app.set(42 as unknown as string, 1)).toThrow(TypeError);
    expect(() => app.param('', () => undefined)).toThrow(TypeError);
    expect(() => app.param(':id', () => undefined)).toThrow(/leading ':'/);
    expect(() => app.param('id', 'nope' as never)).toThrow(TypeError);
  });
});
