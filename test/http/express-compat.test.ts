/** Unmodified Express middleware mounted with app.use runs on FwRequest/FwResponse — both transports. */
import { join } from 'node:path';
import cookieParser from 'cookie-parser';
import bodyParser from 'body-parser';
import serveStatic from 'serve-static';
import helmet from 'helmet';
import session from 'express-session';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import { server, type FwApplication, type MiddlewareHandler } from 'fw';
import { bothWays, json } from './support/both-ways';

const FILES = join(__dirname, 'fixtures', 'files');

// Express middleware is typed against Express's own request type; at run time it only needs Node's objects plus the Express surface fw provides.
const express = (mw: unknown): MiddlewareHandler => mw as MiddlewareHandler;

function buildApp(): FwApplication {
  const app = server.http();
  passport.use(new LocalStrategy((username, password, done) => {
    if (username === 'ann' && password === 'pw') done(null, { id: '1', username });
    else done(null, false);
  }));
  passport.serializeUser((user, done) => done(null, (user as { id: string }).id));
  passport.deserializeUser((id: string, done) => done(null, { id, username: 'ann' }));

  app.use(express(helmet()));
  app.use(express(cookieParser()));
  app.use('/static', express(serveStatic(FILES)));
  app.use(express(session({ secret: 'test-secret', resave: false, saveUninitialized: false })));
  app.use(express(passport.initialize()));
  app.use(express(passport.session()));
  app.get('/cookies', (req, res) => res.json({ cookies: (req as unknown as { cookies: unknown }).cookies }));
  app.post('/json', express(bodyParser.json()), (req, res) => res.json({ body: req.body }));
  app.post('/form', express(bodyParser.urlencoded({ extended: false })), (req, res) => res.json({ body: req.body }));
  app.post('/login', express(bodyParser.json()), express(passport.authenticate('local')), (req, res) => res.json({ user: req.user }));
  app.get('/me', (req, res) => {
    if (req.user === undefined) { res.status(401).json({ error: 'not authenticated' }); return; }
    res.json({ user: req.user });
  });
  return app;
}

bothWays('Express middleware', buildApp, (client) => {
  const get = (path: string, init?: RequestInit) => client().request(path, init);

  test('helmet sets its headers', async () => {
    const r = await get('/cookies');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('x-powered-by')).toBeNull();
  });

  test('cookie-parser fills req.cookies', async () => {
    expect(await json(await get('/cookies', { headers: { Cookie: 'a=1; b=two' } }))).toEqual({ cookies: { a: '1', b: 'two' } });
  });

  test('serve-static mounted under a prefix', async () => {
    const r = await get('/static/hello.txt');
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('hello file contents\n');
    expect((await get('/static/missing.txt')).status).toBe(404);
  });

  test('body-parser json and urlencoded', async () => {
    expect(await json(await get('/json', { method: 'POST', body: '{"a":[1,2]}', headers: { 'content-type': 'application/json' } }))).toEqual({ body: { a: [1, 2] } });
    expect(await json(await get('/form', { method: 'POST', body: 'x=1&y=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } }))).toEqual({ body: { x: '1', y: '2' } });
    const bad = await get('/json', { method: 'POST', body: '{oops', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
  });

  test('express-session + passport-local log in and keep the user', async () => {
    expect((await get('/me')).status).toBe(401);
    const refused = await get('/login', { method: 'POST', body: JSON.stringify({ username: 'ann', password: 'bad' }), headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(401);
    const login = await get('/login', { method: 'POST', body: JSON.stringify({ username: 'ann', password: 'pw' }), headers: { 'content-type': 'application/json' } });
    expect(login.status).toBe(200);
    expect(await json(login)).toEqual({ user: { id: '1', username: 'ann' } });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const me = await get('/me', { headers: { Cookie: cookie } });
    expect(await json(me)).toEqual({ user: { id: '1', username: 'ann' } });
  });
});
