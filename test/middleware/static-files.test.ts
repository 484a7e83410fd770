/**
 * staticFiles(): serving under a mount path with maxAge, index and
 * extensions; and every traversal trick refused (403/404) without ever
 * serving a byte from outside the root or a dotfile.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { staticFiles } from 'fw/middleware';
import { send, startApp, type Started } from './support/test-app';

const SECRET = 'TOP-SECRET-OUTSIDE-ROOT';
let base: string;
let s: Started;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'fw-static-'));
  const root = join(base, 'public');
  mkdirSync(join(root, 'docs'), { recursive: true });
  writeFileSync(join(root, 'hello.txt'), 'hello from root');
  writeFileSync(join(root, 'index.html'), '<h1>home</h1>');
  writeFileSync(join(root, 'docs', 'start.html'), '<h1>docs start</h1>');
  writeFileSync(join(root, 'about.html'), '<h1>about</h1>');
  writeFileSync(join(root, '.env'), `DOTFILE=${SECRET}`);
  writeFileSync(join(base, 'secret.txt'), SECRET);
  s = await startApp((app) => {
    app.use('/assets', staticFiles({ root, maxAge: '1d', index: ['index.html', 'start.html'], extensions: ['html'] }));
    app.get('/alive', (_req: unknown, res: { json(v: unknown): void }) => res.json({ ok: true }));
  });
});

afterAll(async () => {
  await s.close();
  rmSync(base, { recursive: true, force: true });
});

test('serves a file under the mount path with Cache-Control from maxAge', async () => {
  const r = await send(s.port, { path: '/assets/hello.txt' });
  expect(r.status).toBe(200);
  expect(r.text).toBe('hello from root');
  expect(r.headers['cache-control']).toBe('public, max-age=86400');
  expect(r.headers['content-type']).toMatch(/^text\/plain/);
  expect(r.headers['etag']).toBeDefined();
});

test('HEAD gets headers without a body', async () => {
  const r = await send(s.port, { method: 'HEAD', path: '/assets/hello.txt' });
  expect(r.status).toBe(200);
  expect(r.headers['content-length']).toBe('15');
  expect(r.body.length).toBe(0);
});

test('conditional GET → 304', async () => {
  const first = await send(s.port, { path: '/assets/hello.txt' });
  const r = await send(s.port, { path: '/assets/hello.txt', headers: { 'if-none-match': String(first.headers['etag']) } });
  expect(r.status).toBe(304);
});

test('index list: / gives index.html, a directory gives the first index that exists', async () => {
  expect((await send(s.port, { path: '/assets/' })).text).toBe('<h1>home</h1>');
  expect((await send(s.port, { path: '/assets/docs/' })).text).toBe('<h1>docs start</h1>');
});

test('a directory without trailing slash redirects, keeping the mount path', async () => {
  const r = await send(s.port, { path: '/assets/docs' });
  expect(r.status).toBe(301);
  expect(r.headers.location).toBe('/assets/docs/');
});

test('extensions list: /about finds about.html', async () => {
  const r = await send(s.port, { path: '/assets/about' });
  expect(r.status).toBe(200);
  expect(r.text).toBe('<h1>about</h1>');
});

test('a missing file falls through to the app 404 {error}', async () => {
  const r = await send(s.port, { path: '/assets/nope.txt' });
  expect(r.status).toBe(404);
  expect(r.json).toMatchObject({ error: expect.any(String) });
});

test.each([
  ['/assets/../secret.txt'],
  ['/assets/docs/../../secret.txt'],
  ['/assets/%2e%2e/secret.txt'],
  ['/assets/%2E%2E/%2e%2e/secret.txt'],
  ['/assets/..%2fsecret.txt'],
  ['/assets/..%2Fsecret.txt'],
  ['/assets/docs%2f..%2f..%2fsecret.txt'],
  ['/assets/..%5csecret.txt'],
  ['/assets/..\\secret.txt'],
  ['/assets/docs\\..\\..\\secret.txt'],
  ['/assets/%252e%252e/secret.txt'],
  ['/assets/hello.txt%00.html'],
  ['/assets/.env'],
  ['/assets/%2eenv'],
  ['/assets/docs/../.env'],
])('refuses %s (403/404/400, never a file outside root or a dotfile)', async (path) => {
  const r = await send(s.port, { path });
  expect([400, 403, 404]).toContain(r.status);
  expect(r.text).not.toContain(SECRET);
  expect(r.json).toMatchObject({ error: expect.any(String) });
  expect((await send(s.port, { path: '/alive' })).status).toBe(200);
});

test('traversal gets 403 with a clear message', async () => {
  const r = await send(s.port, { path: '/assets/..%2fsecret.txt' });
  expect(r.status).toBe(403);
  expect(r.json).toEqual({ error: 'Path contains an encoded or backslash separator' });
  const up = await send(s.port, { path: '/assets/%2e%2e/secret.txt' });
  expect(up.status).toBe(403);
  expect(up.json).toEqual({ error: 'Path leaves the static root' });
});

test('dotfiles are ignored → 404', async () => {
  const r = await send(s.port, { path: '/assets/.env' });
  expect(r.status).toBe(404);
});

test('staticFiles() without a root is a configuration error', () => {
  expect(() => staticFiles({ root: '' })).toThrow(TypeError);
});
