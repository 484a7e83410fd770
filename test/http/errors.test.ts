/** Spec 7.2 / 4.3 rules 8–9: error handlers, next(error), rejected async handlers, 404 handler — both transports. */
import { server, type ErrorHandler, type FwApplication, type RouteHandler } from 'fw';
import { bothWays, json } from './support/both-ways';

const logged: unknown[] = [];

class NotFoundError extends Error {
  readonly statusCode = 404;
}

function buildApp(withHandlers: boolean): FwApplication {
  const app = server.http().withLogger({ error: (_message, error) => logged.push(error) });
  app.get('/sync-throw', () => { throw new Error('secret database password'); });
  app.get('/async-reject', async () => { throw new NotFoundError('user 7 not found'); });
  app.get('/next-error', (req, res, next) => next(Object.assign(new Error('bad id'), { statusCode: 400 })));
  app.get('/promise-reject', () => Promise.reject(new Error('hidden')));
  app.get('/after-headers', (req, res) => { res.write('partial'); throw new Error('mid-stream'); });
  app.get('/status-prop', (req, res, next) => next(Object.assign(new Error('too many'), { status: 429 })));
  // Error handlers are recognised by declaring four parameters, as in Express.
  const recover: ErrorHandler = (err, req, res, _next) => { res.json({ recovered: (err as Error).message }); };
  const fail: RouteHandler = (req, res, next) => next(new Error('recoverable'));
  app.get('/recover', fail, recover);
  app.get('/pass', (req, res, next) => next(new Error('pass me on')));
  app.get('/breaks', (req, res, next) => next(new Error('handler breaks')));
  if (withHandlers) {
    const onError: ErrorHandler = (err, req, res, next) => {
      if ((err as Error).message === 'pass me on') { next(err); return; }
      if ((err as Error).message === 'handler breaks') throw new Error('error handler failed');
      next(err);
    };
    app.use(onError);
    app.use((req, res) => res.status(404).json({ error: 'custom 404', path: req.path }));
  }
  return app;
}

bothWays('default error responses', () => buildApp(false), (client) => {
  const get = (path: string) => client().request(path);

  test('a thrown error becomes 500 with a generic message; the real one is logged', async () => {
    logged.length = 0;
    const r = await get('/sync-throw');
    expect(r.status).toBe(500);
    const body = await json(r);
    expect(body).toEqual({ error: 'Internal Server Error' });
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(logged).toHaveLength(1);
    expect((logged[0] as Error).message).toBe('secret database password');
  });

  test('a rejected async handler reaches the error handling; statusCode is honoured', async () => {
    const r = await get('/async-reject');
    expect(r.status).toBe(404);
    expect(await json(r)).toEqual({ error: 'user 7 not found' });
  });

  test('next(error) with statusCode', async () => {
    const r = await get('/next-error');
    expect(r.status).toBe(400);
    expect(await json(r)).toEqual({ error: 'bad id' });
  });

  test('a returned rejected promise is handled', async () => {
    const r = await get('/promise-reject');
    expect(r.status).toBe(500);
    expect(await json(r)).toEqual({ error: 'Internal Server Error' });
  });

  test('Express-style status is honoured too', async () => {
    expect((await get('/status-prop')).status).toBe(429);
  });

  test('an error handler inside the route recovers', async () => {
    expect(await json(await get('/recover'))).toEqual({ recovered: 'recoverable' });
  });

  test('an error after headers were sent cuts the response instead of corrupting it', async () => {
    logged.length = 0;
    await expect((async () => { const r = await get('/after-headers'); await r.text(); })()).rejects.toThrow();
    expect((logged[0] as Error).message).toBe('mid-stream');
  });
});

bothWays('custom error and 404 handlers', () => buildApp(true), (client) => {
  test('a 404 handler registered last with use()', async () => {
    const r = await client().request('/missing');
    expect(r.status).toBe(404);
    expect(await json(r)).toEqual({ error: 'custom 404', path: '/missing' });
  });

  test('error handlers registered after the routes see next(error)', async () => {
    const seen: string[] = [];
    const app = server.http().withLogger({ error: () => undefined });
    app.get('/boom', () => { throw Object.assign(new Error('teapot'), { statusCode: 418 }); });
    const onError: ErrorHandler = (err, req, res, _next) => {
      seen.push((err as Error).message);
      res.status((err as { statusCode: number }).statusCode).json({ error: (err as Error).message, handled: true });
    };
    app.use(onError);
    const r = await app.createFetchHandler()(new Request('http://localhost/boom'));
    expect(r.status).toBe(418);
    expect(await r.json()).toEqual({ error: 'teapot', handled: true });
    expect(seen).toEqual(['teapot']);
  });

  test('an error passed on by an error handler gets the default response', async () => {
    const r = await client().request('/pass');
    expect(r.status).toBe(500);
  });

  test('an error handler that throws is handled, never crashing', async () => {
    const r = await client().request('/breaks');
    expect(r.status).toBe(500);
    expect(await json(r)).toEqual({ error: 'Internal Server Error' });
  });
});
