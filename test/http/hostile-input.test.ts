/** Odd and hostile requests get a clear status; nothing throws out of the server — both transports. */
import { server, Router, type FwApplication } from 'fw';
import { bothWays, json } from './support/both-ways';

function buildApp(): FwApplication {
  const app = server.http().withLogger({ error: () => undefined });
  const v1 = new Router({ mergeParams: true });
  v1.get('/items/:id', (req, res) => res.json({ id: req.params.id }));
  app.use('/api/:version', v1);
  app.get('/files/*', (req, res) => res.json({ rest: req.params['*'] }));
  app.get('/users/:id', (req, res) => res.json({ id: req.params.id, q: req.query }));
  app.get(/^\/re\/(.*)$/, (req, res) => res.json({ g: req.params[0] }));
  return app;
}

const PATHS = [
  '/users/%', '/users/%zz', '/users/%E0%A4%A', '//users//1', '/users/..%2F..%2Fetc', '/users/' + 'a'.repeat(4000),
  '/files/%2e%2e/%2e%2e/secret', '/re/%ff', '/api/%/items/1', '/api/v1/items/%C0%AF', '/users/1?%=%&a[b]=1&a=2&&=',
  '/users/%F0%9F%98%80', '/%00', '/users/1?' + 'x=1&'.repeat(2000), '/' + 'a/'.repeat(300),
];

bothWays('hostile input', buildApp, (client) => {
  test.each(PATHS)('%s gets a status, never a crash', async (path) => {
    const r = await client().request(path);
    expect([200, 400, 404]).toContain(r.status);
    if (r.status !== 200) expect(typeof (await json(r)).error).toBe('string');
    else await r.text();
  });

  test('unknown methods are answered', async () => {
    for (const method of ['PURGE', 'PROPFIND', 'PATCH']) {
      const r = await client().request('/users/1', { method });
      expect([404, 405]).toContain(r.status);
      await r.text();
    }
  });

  test('the query parser caps the number of keys', async () => {
    const body = await json<{ q: Record<string, unknown> }>(await client().request('/users/1?' + Array.from({ length: 1500 }, (_, i) => `k${i}=1`).join('&')));
    expect(Object.keys(body.q).length).toBeLessThanOrEqual(1000);
  });

  test('mergeParams carries a decoded parent parameter', async () => {
    expect(await json(await client().request('/api/v%201/items/7'))).toEqual({ id: '7' });
  });
});
