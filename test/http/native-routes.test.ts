/** Spec 4.3 native routes via withRoutes(), served alongside registered routes — both transports. */
import { server, type FwApplication } from 'fw';
import { bothWays, json } from './support/both-ways';

function buildApp(): FwApplication {
  const app = server.http().withLogger({ error: () => undefined });
  app.get('/registered', (req, res) => res.json({ from: 'registered' }));
  app.withRoutes({
    '/native/:id': (request) => Response.json({ id: request.params.id, url: new URL(request.url).pathname }),
    '/items': {
      GET: () => Response.json([{ id: 1 }]),
      POST: async (request) => Response.json({ created: await request.json() }, { status: 201, headers: { 'X-Native': 'yes' } }),
    },
    '/page': '<h1>imported html</h1>',
    '/config': { feature: true },
    '/ready': new Response('ready', { headers: { 'content-type': 'text/plain' } }),
    '/cookies': () => {
      const headers = new Headers();
      headers.append('Set-Cookie', 'a=1');
      headers.append('Set-Cookie', 'b=2');
      return new Response(null, { status: 204, headers });
    },
    '/async-fail': async () => { throw Object.assign(new Error('native failure'), { statusCode: 409 }); },
    '/not-a-response': (() => 'oops') as never,
  });
  app.get('/after', (req, res) => res.json({ from: 'after' }));
  return app;
}

bothWays('native routes', buildApp, (client) => {
  const get = (path: string, init?: RequestInit) => client().request(path, init);

  test('function handler with req.params', async () => {
    expect(await json(await get('/native/77'))).toEqual({ id: '77', url: '/native/77' });
  });

  test('per-method object', async () => {
    expect(await json(await get('/items'))).toEqual([{ id: 1 }]);
    const created = await get('/items', { method: 'POST', body: JSON.stringify({ name: 'x' }), headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-native')).toBe('yes');
    expect(await json(created)).toEqual({ created: { name: 'x' } });
    const wrong = await get('/items', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
  });

  test('static values: HTML, JSON, Response', async () => {
    const page = await get('/page');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toBe('<h1>imported html</h1>');
    expect(await json(await get('/config'))).toEqual({ feature: true });
    expect(await (await get('/ready')).text()).toBe('ready');
    expect(await (await get('/ready')).text()).toBe('ready');
  });

  test('multiple Set-Cookie headers survive', async () => {
    const r = await get('/cookies');
    expect(r.status).toBe(204);
    expect(r.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });

  test('served alongside registered routes', async () => {
    expect(await json(await get('/registered'))).toEqual({ from: 'registered' });
    expect(await json(await get('/after'))).toEqual({ from: 'after' });
    expect((await get('/missing')).status).toBe(404);
  });

  test('a failing native handler goes through the error handling', async () => {
    const r = await get('/async-fail');
    expect(r.status).toBe(409);
    expect(await json(r)).toEqual({ error: 'native failure' });
    expect((await get('/not-a-response')).status).toBe(500);
  });
});

test('withRoutes refuses a non-object', () => {
  expect(() => server.http().withRoutes(null as never)).toThrow(/expects an object/);
  expect(() => server.http().withRoutes({ '/x': undefined as never })).toThrow(/no handler/);
});
