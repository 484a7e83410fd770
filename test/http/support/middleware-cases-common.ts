/**
 * Widely used Express middleware, each mounted as its README shows, for the
 * side-by-side comparison with Express 5 (test/http/third-party-middleware.test.ts).
 */
import express from 'express';
import cookieParser from 'cookie-parser';
import session from 'express-session';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import cors from 'cors';
import helmet from 'helmet';
import compression from 'compression';
import morgan from 'morgan';
import multer from 'multer';
import { query, validationResult, matchedData } from 'express-validator';
import timeout from 'connect-timeout';
import methodOverride from 'method-override';
import responseTime from 'response-time';
import favicon from 'serve-favicon';
import { rateLimit } from 'express-rate-limit';
import { maskCookieValues } from './middleware-cases-issue';
import type { MiddlewareCase, Recorded } from './side-by-side';

type Req = express.Request;
type Res = express.Response;
type Next = express.NextFunction;

const LONG_TEXT = 'fw and Express answer alike. '.repeat(200);

function form(fields: Record<string, string>, files: { field: string; name: string; content: string }[]): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const f of files) data.append(f.field, new Blob([f.content], { type: 'text/plain' }), f.name);
  return data;
}

function maskHeader(record: Recorded, header: string, pattern: RegExp, replacement: string): Recorded {
  const value = record.headers?.[header];
  if (value === undefined || value === null) return record;
  return { ...record, headers: { ...record.headers, [header]: value.replace(pattern, replacement) } };
}

export function commonCases(faviconPath: string): MiddlewareCase[] {
  return [
    {
      pkg: 'cookie-parser',
      exercised: "app.use(cookieParser('secret')): res.cookie signed and JSON cookies read back into req.signedCookies / req.cookies; a forged signature",
      headers: ['content-type', 'set-cookie'],
      mount(app) {
        app.use(cookieParser('secret'));
        app.get('/set', (req: Req, res: Res) => res.cookie('user', 'ann', { signed: true }).cookie('prefs', { theme: 'dark' }).json({ set: true }));
        app.get('/', (req: Req, res: Res) => res.json({ cookies: req.cookies as unknown, signed: req.signedCookies as unknown }));
      },
      async run(client) {
        const set = await client.send('set', '/set');
        const cookie = set.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
        await client.send('read back', '/', { headers: { cookie: `${cookie}; a=1` } });
        await client.send('forged', '/', { headers: { cookie: `user=${encodeURIComponent('s:ann.forged')}` } });
      },
      check(records) {
        expect(records[0]!.headers!['set-cookie']).toMatch(/^user=s%3Aann\.[^;]+; Path=\/\nprefs=j%3A%7B%22theme%22%3A%22dark%22%7D; Path=\/$/);
        expect(records[1]!.body).toEqual({ cookies: { prefs: { theme: 'dark' }, a: '1' }, signed: { user: 'ann' } });
        expect(records[2]!.body).toEqual({ cookies: {}, signed: { user: false } });
      },
    },
    {
      pkg: 'express-session',
      exercised: 'session({ secret, resave: false, saveUninitialized: true }): a view counter kept across requests by cookie',
      headers: ['content-type', 'set-cookie'],
      mount(app) {
        app.use(session({ secret: 'keyboard cat', resave: false, saveUninitialized: true, cookie: { secure: false } }));
        app.get('/', (req: Req, res: Res) => {
          const s = req.session as typeof req.session & { views?: number };
          s.views = (s.views ?? 0) + 1;
          res.json({ views: s.views });
        });
      },
      async run(client) {
        const first = await client.send('first visit', '/');
        const cookie = first.headers.getSetCookie()[0]!.split(';')[0]!;
        await client.send('second visit', '/', { headers: { cookie } });
        await client.send('third visit', '/', { headers: { cookie } });
      },
      mask: maskCookieValues,
      check(records) {
        expect(records.map((r) => r.body)).toEqual([{ views: 1 }, { views: 2 }, { views: 3 }]);
        expect(records[0]!.headers!['set-cookie']).toMatch(/^connect\.sid=s%3A<signed>; Path=\/; HttpOnly$/);
      },
    },
    {
      pkg: 'passport',
      exercised: 'passport-local login with express-session: refused, accepted, req.user on the next request, logout',
      headers: ['content-type'],
      mount(app) {
        passport.use(new LocalStrategy((username, password, done) => done(null, username === 'ann' && password === 'pw' ? { id: '1', username } : false)));
        passport.serializeUser((user, done) => done(null, (user as { id: string }).id));
        passport.deserializeUser((id: string, done) => done(null, { id, username: 'ann' }));
        app.use(express.urlencoded({ extended: false }));
        app.use(session({ secret: 'keyboard cat', resave: false, saveUninitialized: false }));
        app.use(passport.session());
        app.post('/login', passport.authenticate('local', { failureRedirect: '/login' }), (req: Req, res: Res) => res.json({ user: req.user }));
        app.get('/me', (req: Req, res: Res) => res.json({ user: req.user ?? null }));
        app.post('/logout', (req: Req, res: Res, next: Next) => req.logout((err) => (err ? next(err) : res.json({ out: true }))));
      },
      async run(client) {
        const login = (password: string): RequestInit => ({ method: 'POST', body: new URLSearchParams({ username: 'ann', password }) });
        await client.send('refused', '/login', login('bad'));
        const accepted = await client.send('accepted', '/login', login('pw'));
        const cookie = accepted.headers.getSetCookie()[0]!.split(';')[0]!;
        await client.send('me', '/me', { headers: { cookie } });
        await client.send('logout', '/logout', { method: 'POST', headers: { cookie } });
        await client.send('me after logout', '/me', { headers: { cookie } });
      },
      check(records) {
        expect(records[0]).toMatchObject({ status: 302 });
        expect(records[1]).toMatchObject({ status: 200, body: { user: { id: '1', username: 'ann' } } });
        expect(records[2]!.body).toEqual({ user: { id: '1', username: 'ann' } });
        expect(records[4]!.body).toEqual({ user: null });
      },
    },
    {
      pkg: 'cors',
      exercised: "app.use(cors({ origin: 'http://example.com' })): preflight, simple request, other origin",
      headers: ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'vary', 'content-length'],
      mount(app) {
        app.use(cors({ origin: 'http://example.com' }));
        app.get('/products/:id', (req: Req, res: Res) => res.json({ msg: 'This is CORS-enabled for only example.com.' }));
      },
      async run(client) {
        await client.send('preflight', '/products/1', { method: 'OPTIONS', headers: { origin: 'http://example.com', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-token' } });
        await client.send('simple', '/products/1', { headers: { origin: 'http://example.com' } });
        await client.send('other origin', '/products/1', { headers: { origin: 'http://evil.test' } });
      },
      check(records) {
        expect(records[0]).toMatchObject({ status: 204, headers: { 'access-control-allow-origin': 'http://example.com', 'access-control-allow-headers': 'x-token' } });
        expect(records[1]!.headers!['access-control-allow-origin']).toBe('http://example.com');
      },
    },
    {
      pkg: 'helmet',
      exercised: 'app.use(helmet()): every default security header, X-Powered-By removed',
      headers: ['content-security-policy', 'cross-origin-opener-policy', 'cross-origin-resource-policy', 'origin-agent-cluster', 'referrer-policy', 'strict-transport-security', 'x-content-type-options', 'x-dns-prefetch-control', 'x-download-options', 'x-frame-options', 'x-permitted-cross-domain-policies', 'x-powered-by', 'x-xss-protection', 'content-type'],
      mount(app) {
        app.use(helmet());
        app.get('/', (req: Req, res: Res) => res.send('<p>hi</p>'));
      },
      async run(client) {
        await client.send('page', '/');
      },
      check(records) {
        expect(records[0]!.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'SAMEORIGIN', 'x-powered-by': null });
      },
    },
    {
      pkg: 'compression',
      exercised: 'app.use(compression()): gzip above the threshold, identity below it and without Accept-Encoding',
      headers: ['content-encoding', 'vary', 'content-type', 'content-length'],
      mount(app) {
        app.use(compression());
        app.get('/long', (req: Req, res: Res) => res.send(LONG_TEXT));
        app.get('/short', (req: Req, res: Res) => res.send('short'));
      },
      async run(client) {
        await client.send('long', '/long', { headers: { 'accept-encoding': 'gzip' } });
        await client.send('short', '/short', { headers: { 'accept-encoding': 'gzip' } });
        await client.send('long, identity', '/long', { headers: { 'accept-encoding': 'identity' } });
      },
      check(records) {
        expect(records[0]!.headers).toMatchObject({ 'content-encoding': 'gzip', 'content-length': null });
        expect(records[0]!.body).toBe(LONG_TEXT);
        expect(records[1]!.headers).toMatchObject({ 'content-encoding': null, 'content-length': '5' });
      },
    },
    {
      pkg: 'morgan',
      exercised: "morgan('tiny') and a custom format with :req[] / :res[] tokens, to a stream",
      headers: ['content-type'],
      mount(app, side) {
        const stream = { write: (line: string) => { side.logs.push(line); } };
        app.use(morgan('tiny', { stream }));
        app.use(morgan(':method :url :status :res[content-length] :req[x-trace] :res[content-type]', { stream }));
        app.get('/users/:id', (req: Req, res: Res) => res.json({ id: req.params.id }));
        app.post('/items', (req: Req, res: Res) => res.status(201).send('made'));
      },
      async run(client) {
        const { logs } = client.side;
        await client.send('found', '/users/7?verbose=1', { headers: { 'x-trace': 'abc' } });
        await client.until(() => logs.length >= 2);
        await client.send('created', '/items', { method: 'POST' });
        await client.until(() => logs.length >= 4);
        for (const line of logs) client.note('log', line.replace(/ - [\d.]+ ms/, ' - <ms> ms'));
      },
      check(records) {
        const logged = records.filter((r) => r.label === 'log').map((r) => r.body);
        expect(logged).toEqual([
          'GET /users/7?verbose=1 200 10 - <ms> ms\n',
          'GET /users/7?verbose=1 200 10 abc application/json; charset=utf-8\n',
          'POST /items 201 4 - <ms> ms\n',
          'POST /items 201 4 - text/html; charset=utf-8\n',
        ]);
      },
    },
    {
      pkg: 'multer',
      exercised: "upload.single('avatar') to memory storage with fields; upload.array('photos', 2) with 3 files → MulterError in the error handler",
      headers: ['content-type'],
      mount(app) {
        const upload = multer({ storage: multer.memoryStorage() });
        app.post('/profile', upload.single('avatar'), (req: Req, res: Res) => {
          const f = req.file!;
          res.json({ body: req.body as unknown, file: { fieldname: f.fieldname, originalname: f.originalname, mimetype: f.mimetype, size: f.size, text: f.buffer.toString() } });
        });
        app.post('/photos/upload', upload.array('photos', 2), (req: Req, res: Res) => res.json({ count: (req.files as unknown[]).length }));
        app.use((err: Error, req: Req, res: Res, next: Next) => {
          if (err instanceof multer.MulterError) res.status(400).json({ code: err.code, field: err.field });
          else next(err);
        });
      },
      async run(client) {
        await client.send('single', '/profile', { method: 'POST', body: form({ name: 'ann' }, [{ field: 'avatar', name: 'me.txt', content: 'avatar bytes' }]) });
        const three = [1, 2, 3].map((n) => ({ field: 'photos', name: `p${n}.txt`, content: `photo ${n}` }));
        await client.send('too many', '/photos/upload', { method: 'POST', body: form({}, three) });
        await client.send('two', '/photos/upload', { method: 'POST', body: form({}, three.slice(0, 2)) });
      },
      check(records) {
        expect(records[0]!.body).toEqual({ body: { name: 'ann' }, file: { fieldname: 'avatar', originalname: 'me.txt', mimetype: 'text/plain', size: 12, text: 'avatar bytes' } });
        expect(records[1]).toMatchObject({ status: 400, body: { code: 'LIMIT_UNEXPECTED_FILE', field: 'photos' } });
        expect(records[2]!.body).toEqual({ count: 2 });
      },
    },
    {
      pkg: 'express-validator',
      exercised: "query('person').notEmpty().escape(): valid, escaped and missing input; matchedData; res.send of a string and of an object",
      headers: ['content-type', 'content-length'],
      mount(app) {
        app.use(express.json());
        app.get('/hello', query('person').notEmpty().escape(), (req: Req, res: Res) => {
          const result = validationResult(req);
          if (result.isEmpty()) {
            const data = matchedData(req);
            return res.send(`Hello, ${String(data.person)}!`);
          }
          res.send({ errors: result.array() });
        });
      },
      async run(client) {
        await client.send('valid', '/hello?person=John');
        await client.send('escaped', '/hello?person=%3Cb%3EJohn%3C%2Fb%3E');
        await client.send('missing', '/hello');
      },
      check(records) {
        expect(records[0]).toMatchObject({ body: 'Hello, John!', headers: { 'content-type': 'text/html; charset=utf-8' } });
        expect(records[1]!.body).toBe('Hello, &lt;b&gt;John&lt;&#x2F;b&gt;!');
        expect(records[2]!.body).toEqual({ errors: [{ type: 'field', msg: 'Invalid value', path: 'person', location: 'query' }] });
      },
    },
    {
      pkg: 'connect-timeout',
      exercised: "timeout('100ms') + haltOnTimedout: a slow handler gets 503 through the error handler; a fast one answers",
      headers: ['content-type'],
      mount(app) {
        const haltOnTimedout = (req: Req, res: Res, next: Next): void => {
          if (!req.timedout) next();
        };
        app.use(timeout('100ms'));
        app.use(haltOnTimedout);
        app.get('/slow', (req: Req, res: Res, next: Next) => {
          setTimeout(() => {
            if (!req.timedout) res.json({ late: true });
            else next();
          }, 300);
        });
        app.get('/fast', (req: Req, res: Res) => res.json({ fast: true }));
        app.use((err: { status?: number; message: string }, req: Req, res: Res, _next: Next) => {
          res.status(err.status ?? 500).json({ error: err.message });
        });
      },
      async run(client) {
        await client.send('slow', '/slow');
        await client.send('fast', '/fast');
      },
      check(records) {
        expect(records[0]).toMatchObject({ status: 503, body: { error: 'Response timeout' } });
        expect(records[1]!.body).toEqual({ fast: true });
      },
    },
    {
      pkg: 'method-override',
      exercised: "methodOverride('X-HTTP-Method-Override') and methodOverride('_method') (query): POST reaches the DELETE route",
      headers: ['content-type'],
      mount(app) {
        app.use(methodOverride('X-HTTP-Method-Override'));
        app.use(methodOverride('_method'));
        app.delete('/resource', (req: Req, res: Res) => res.json({ method: req.method, originalMethod: (req as Req & { originalMethod?: string }).originalMethod }));
        app.post('/resource', (req: Req, res: Res) => res.json({ method: req.method }));
      },
      async run(client) {
        await client.send('header', '/resource', { method: 'POST', headers: { 'x-http-method-override': 'DELETE' } });
        await client.send('query', '/resource?_method=DELETE', { method: 'POST' });
        await client.send('plain POST', '/resource', { method: 'POST' });
      },
      check(records) {
        expect(records[0]!.body).toEqual({ method: 'DELETE', originalMethod: 'POST' });
        expect(records[1]!.body).toEqual({ method: 'DELETE', originalMethod: 'POST' });
        expect(records[2]!.body).toEqual({ method: 'POST' });
      },
    },
    {
      pkg: 'response-time',
      exercised: 'app.use(responseTime()): X-Response-Time on every response',
      headers: ['x-response-time'],
      mount(app) {
        app.use(responseTime());
        app.get('/', (req: Req, res: Res) => res.send('hello, world!'));
      },
      async run(client) {
        await client.send('timed', '/');
      },
      mask: (r) => maskHeader(r, 'x-response-time', /^\d+\.\d{3}ms$/, '<n.nnn>ms'),
      check(records) {
        expect(records[0]!.headers!['x-response-time']).toBe('<n.nnn>ms');
      },
    },
    {
      pkg: 'serve-favicon',
      exercised: 'app.use(favicon(path)): the icon with caching headers, conditional GET → 304, POST → 405 with Allow',
      headers: ['content-type', 'content-length', 'cache-control', 'allow', 'etag'],
      mount(app) {
        app.use(favicon(faviconPath));
        app.get('/', (req: Req, res: Res) => res.send('Hello World!'));
      },
      async run(client) {
        const icon = await client.send('icon', '/favicon.ico');
        await client.sendRaw('conditional', '/favicon.ico', { 'if-none-match': icon.headers.get('etag')! });
        await client.send('POST', '/favicon.ico', { method: 'POST' });
      },
      check(records) {
        expect(records[0]).toMatchObject({ status: 200, headers: { 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=31536000' } });
        expect(records[1]!.status).toBe(304);
        expect(records[2]).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD, OPTIONS' } });
      },
    },
    {
      pkg: 'express-rate-limit',
      exercised: "rateLimit({ windowMs, limit: 2, standardHeaders: 'draft-8' }): two allowed, the third 429, standard headers",
      headers: ['ratelimit', 'ratelimit-policy', 'retry-after', 'content-type'],
      mount(app) {
        app.use(rateLimit({ windowMs: 15 * 60 * 1000, limit: 2, standardHeaders: 'draft-8', legacyHeaders: false }));
        app.get('/', (req: Req, res: Res) => res.send('ok'));
      },
      async run(client) {
        for (const n of [1, 2, 3]) await client.send(`request ${n}`, '/');
      },
      mask: (r) => maskHeader(maskHeader(r, 'ratelimit', /t=\d+/, 't=<s>'), 'retry-after', /^\d+$/, '<s>'),
      check(records) {
        expect(records.map((r) => r.status)).toEqual([200, 200, 429]);
        expect(records[0]!.headers!.ratelimit).toBe('"2-in-15min"; r=1; t=<s>');
      },
    },
  ] satisfies MiddlewareCase[];
}
