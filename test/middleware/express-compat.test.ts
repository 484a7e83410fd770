/**
 * The compatibility we promise: unmodified third-party Express middleware
 * mounted with app.use — cookie-parser, and passport's local strategy on
 * top of session() and urlencoded().
 */
import cookieParser from 'cookie-parser';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import { session, urlencoded } from 'fw/middleware';
import { send, startApp, type Started } from './support/test-app';

type Res = { status(n: number): Res; json(v: unknown): void };

describe('cookie-parser', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startApp((app) => {
      app.use(cookieParser('cookie-secret'));
      app.get('/cookies', (req: { cookies: unknown; signedCookies: unknown }, res: Res) => res.json({ cookies: req.cookies, signed: req.signedCookies }));
    });
  });
  afterAll(() => s.close());

  test('parses plain and signed cookies; a tampered signed cookie is false', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const signature = require('cookie-signature') as { sign(value: string, secret: string): string };
    const signed = encodeURIComponent(`s:${signature.sign('u-1', 'cookie-secret')}`);
    const r = await send(s.port, { path: '/cookies', headers: { cookie: `theme=dark; uid=${signed}; bad=${encodeURIComponent('s:u-2.forged')}` } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ cookies: { theme: 'dark' }, signed: { uid: 'u-1', bad: false } });
  });
});

describe('passport-local with session()', () => {
  let s: Started;
  const users = new Map([['ada', { id: 'u-1', username: 'ada', password: 'lovelace' }]]);

  beforeAll(async () => {
    const auth = new passport.Passport();
    auth.use(
      new LocalStrategy((username, password, done) => {
        const user = users.get(username);
        if (user === undefined || user.password !== password) return done(null, false);
        return done(null, user);
      }),
    );
    auth.serializeUser((user, done) => done(null, (user as { id: string }).id));
    auth.deserializeUser((id: string, done) => done(null, [...users.values()].find((u) => u.id === id) ?? false));
    s = await startApp((app) => {
      app.use(urlencoded({ extended: false }));
      app.use(session({ secret: 'passport-secret' }));
      app.use(auth.initialize());
      app.use(auth.session());
      app.post('/login', (req: unknown, res: Res, next: (e?: unknown) => void) => {
        auth.authenticate('local', (error: unknown, user: unknown) => {
          if (error) return next(error);
          if (!user) return res.status(401).json({ error: 'Invalid credentials' });
          (req as { logIn(u: unknown, cb: (e?: unknown) => void): void }).logIn(user, (loginError) => {
            if (loginError) return next(loginError);
            res.json({ ok: true });
          });
        })(req, res, next);
      });
      app.get('/profile', (req: { user?: { username: string }; isAuthenticated(): boolean }, res: Res) => {
        if (!req.isAuthenticated()) return res.status(401).json({ error: 'Not authenticated' });
        res.json({ username: req.user!.username });
      });
    });
  });
  afterAll(() => s.close());

  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  test('valid credentials log in; the session carries the user to the next request', async () => {
    const login = await send(s.port, { method: 'POST', path: '/login', body: 'username=ada&password=lovelace', headers: form });
    expect(login.status).toBe(200);
    const cookie = login.headers['set-cookie']![0]!.split(';')[0]!;
    const profile = await send(s.port, { path: '/profile', headers: { cookie } });
    expect(profile.status).toBe(200);
    expect(profile.json).toEqual({ username: 'ada' });
  });

  test('invalid credentials → 401 {error}; no session → 401', async () => {
    const login = await send(s.port, { method: 'POST', path: '/login', body: 'username=ada&password=wrong', headers: form });
    expect(login.status).toBe(401);
    expect(login.json).toEqual({ error: 'Invalid credentials' });
    expect((await send(s.port, { path: '/profile' })).status).toBe(401);
  });
});
