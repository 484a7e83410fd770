/** withOptions' cors/compression/rateLimit/maxRequestBodySize keys go through globalMiddleware(), installed once ahead of every route. */
import { server } from 'fw';

const calls: unknown[] = [];

jest.mock('../../runtime/middleware/global-options', () => ({
  globalMiddleware: (options: unknown) => {
    calls.push(options);
    return [
      (req: { headers: Record<string, string> }, res: { setHeader(n: string, v: string): void }, next: () => void) => { res.setHeader('X-Global-1', 'first'); next(); },
      (req: unknown, res: { setHeader(n: string, v: string): void }, next: () => void) => { res.setHeader('X-Global-2', 'second'); next(); },
    ];
  },
}));

test('global middleware is asked for once, with the options, and runs ahead of earlier-registered routes', async () => {
  const app = server.http();
  app.get('/', (req, res) => res.json({ headers: res.getHeaderNames() }));
  app.withOptions({ cors: { origin: '*' }, rateLimit: { windowMs: 1000, max: 5 } });
  const fetch = app.createFetchHandler();
  const first = await fetch(new Request('http://localhost/'));
  expect(first.headers.get('x-global-1')).toBe('first');
  expect(first.headers.get('x-global-2')).toBe('second');
  expect(await first.json()).toEqual({ headers: ['x-global-1', 'x-global-2'] });
  await (await fetch(new Request('http://localhost/'))).text();
  app.createFetchHandler();
  expect(calls).toEqual([{ cors: { origin: '*' }, rateLimit: { windowMs: 1000, max: 5 } }]);
  const missing = await fetch(new Request('http://localhost/nope'));
  expect(missing.status).toBe(404);
  expect(missing.headers.get('x-global-1')).toBe('first');
});
