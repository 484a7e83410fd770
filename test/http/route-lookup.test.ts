/**
 * The router's lookup table (keys of static paths and literal prefixes,
 * walked up from the deepest key a path can reach) and the matcher that
 * skips the prefix the table has already compared — in-process and over a
 * socket. Also: what `req.params` inherits and what `getHeader` reports
 * after `res.json`.
 */
import { server, type FwApplication } from 'fw';
import { bothWays, json } from './support/both-ways';

function buildApp(): FwApplication {
  const app = server.http();
  for (let i = 0; i < 200; i++) {
    if (i % 2 === 0) app.get(`/api/v1/resource${i}`, (req, res) => res.json({ list: i }));
    else app.get(`/api/v1/resource${i}/:id`, (req, res) => res.json({ resource: i, id: req.params.id }));
  }
  app.get('/api/v1/resource199/:id/items/:item', (req, res) => res.json({ deep: req.params.item, id: req.params.id }));
  app.get('/users', (req, res) => res.json({ route: 'users' }));
  app.get('/users/:id', (req, res) => res.json({ route: 'user', id: req.params.id }));
  app.get('/Mixed/Case/:id', (req, res) => res.json({ mixed: req.params.id }));
  app.get('/a/b/c/d/e/f/:id', (req, res) => res.json({ depth: 7, id: req.params.id }));
  app.get('/opt/:a?/:b?', (req, res) => res.json({ a: req.params.a ?? null, b: req.params.b ?? null }));
  app.get('/proto/:__proto__/:constructor', (req, res) => res.json({
    own: Object.keys(req.params),
    proto: req.params['__proto__'],
    ctor: req.params['constructor'],
    inheritsNothing: !('toString' in req.params) && !('hasOwnProperty' in req.params),
  }));
  app.get('/length', (req, res) => res.json({ text: 'héllo' }));
  app.get('/length-after', (req, res) => {
    res.on('finish', () => { lengthSeen = res.getHeader('Content-Length'); });
    res.json({ text: 'héllo' });
  });
  app.use('/mounted', (req, res) => res.json({ mounted: req.originalUrl, path: req.path }));
  return app;
}

let lengthSeen: unknown;

bothWays('route lookup', buildApp, (getClient) => {
  const client = { request: (path: string) => getClient().request(path) };
  test('the last dynamic route of a large table', async () => {
    expect(await json(await client.request('/api/v1/resource199/42'))).toEqual({ resource: 199, id: '42' });
    expect(await json(await client.request('/api/v1/resource1/x'))).toEqual({ resource: 1, id: 'x' });
  });

  test('a static route of the table, and a dynamic route under it that does not exist', async () => {
    expect(await json(await client.request('/api/v1/resource198'))).toEqual({ list: 198 });
    expect((await client.request('/api/v1/resource198/42')).status).toBe(404);
  });

  test('a literal must end at a segment boundary', async () => {
    expect((await client.request('/api/v1/resource1999/42')).status).toBe(404);
    expect((await client.request('/users2')).status).toBe(404);
    expect((await client.request('/users2/7')).status).toBe(404);
    expect(await json(await client.request('/users/7'))).toEqual({ route: 'user', id: '7' });
  });

  test('a deeper route under a table key', async () => {
    expect(await json(await client.request('/api/v1/resource199/42/items/9'))).toEqual({ deep: '9', id: '42' });
  });

  test('paths deeper than any key, and paths no key starts', async () => {
    expect((await client.request('/api/v1/resource199/42/items/9/more/and/more')).status).toBe(404);
    expect((await client.request('/nowhere/at/all/x/y/z')).status).toBe(404);
    expect((await client.request('/' + 'a/'.repeat(2000) + 'end')).status).toBe(404);
    expect(await json(await client.request('/a/b/c/d/e/f/9'))).toEqual({ depth: 7, id: '9' });
    expect((await client.request('/a/b/c/d/e/9')).status).toBe(404);
  });

  test('case-insensitive literals, parameter case kept', async () => {
    expect(await json(await client.request('/mixed/CASE/AbC'))).toEqual({ mixed: 'AbC' });
    expect(await json(await client.request('/API/V1/Resource3/Q'))).toEqual({ resource: 3, id: 'Q' });
  });

  test('optional parameters after the prefix', async () => {
    expect(await json(await client.request('/opt'))).toEqual({ a: null, b: null });
    expect(await json(await client.request('/opt/1'))).toEqual({ a: '1', b: null });
    expect(await json(await client.request('/opt/1/2'))).toEqual({ a: '1', b: '2' });
  });

  test('req.params inherits nothing, and keys like __proto__ are its own', async () => {
    expect(await json(await client.request('/proto/p/c'))).toEqual({ own: ['__proto__', 'constructor'], proto: 'p', ctor: 'c', inheritsNothing: true });
  });

  test('a mount prefix still strips', async () => {
    expect(await json(await client.request('/mounted/x/y'))).toEqual({ mounted: '/mounted/x/y', path: '/x/y' });
  });

  test('res.json sends Content-Length, and getHeader reports it after the response', async () => {
    const response = await client.request('/length');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength('{"text":"héllo"}')));
    lengthSeen = undefined;
    await (await client.request('/length-after')).text();
    expect(lengthSeen).toBe(String(Buffer.byteLength('{"text":"héllo"}')));
  });
});
