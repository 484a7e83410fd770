/**
 * session(): login stores the user in req.session, a protected route reads it
 * (401 without), the cookie is HttpOnly/SameSite, and a cookie whose
 * signature does not verify is treated as no session.
 */
import { session } from 'fw/middleware';
import { send, startApp, type Started } from './support/test-app';

type Req = { session?: Record<string, unknown> };
type Res = { status(n: number): Res; json(v: unknown): void };

let s: Started;

beforeAll(async () => {
  s = await startApp((app) => {
    app.use(session({ secret: 'test-secret', cookie: { maxAge: 60_000, httpOnly: true, secure: false } }));
    app.post('/login', (req: Req, res: Res) => {
      req.session!.userId = 'u-1';
      res.json({ ok: true });
    });
    app.get('/me', (req: Req, res: Res) => {
      if (req.session?.userId === undefined) return res.status(401).json({ error: 'Not authenticated' });
      res.json({ userId: req.session.userId });
    });
  });
});

afterAll(() => s.close());

function cookieOf(setCookie: string[] | undefined): string {
  expect(setCookie).toBeDefined();
  return setCookie![0]!.split(';')[0]!;
}

test('login sets a signed HttpOnly cookie; the session is read back', async () => {
  const login = await send(s.port, { method: 'POST', path: '/login' });
  expect(login.status).toBe(200);
  const header = login.headers['set-cookie']![0]!;
  expect(header).toMatch(/^connect\.sid=s%3A/);
  expect(header).toMatch(/HttpOnly/);
  expect(header).toMatch(/SameSite=Lax/);
  expect(header).toMatch(/Expires=/);
  const me = await send(s.port, { path: '/me', headers: { cookie: cookieOf(login.headers['set-cookie']) } });
  expect(me.status).toBe(200);
  expect(me.json).toEqual({ userId: 'u-1' });
});

test('no cookie → 401; nothing stored for an untouched session', async () => {
  const r = await send(s.port, { path: '/me' });
  expect(r.status).toBe(401);
  expect(r.headers['set-cookie']).toBeUndefined();
});

test('a cookie with a bad signature is treated as no session', async () => {
  const login = await send(s.port, { method: 'POST', path: '/login' });
  const good = cookieOf(login.headers['set-cookie']);
  const [name, value] = good.split('=') as [string, string];
  const sid = decodeURIComponent(value).slice(2, decodeURIComponent(value).lastIndexOf('.'));
  const forged = `${name}=${encodeURIComponent(`s:${sid}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`)}`;
  const r = await send(s.port, { path: '/me', headers: { cookie: forged } });
  expect(r.status).toBe(401);
  const unsigned = await send(s.port, { path: '/me', headers: { cookie: `${name}=${sid}` } });
  expect(unsigned.status).toBe(401);
  const garbage = await send(s.port, { path: '/me', headers: { cookie: `${name}=%E0%A4%A` } });
  expect(garbage.status).toBe(401);
});

test('session() without a secret is a configuration error', () => {
  expect(() => session({ secret: '' })).toThrow(TypeError);
});
