/**
 * staticFiles()'s small-file cache: once a file is cached, answers carry the
 * very headers send writes; a changed file is never served stale; Range,
 * conditional requests, HEAD and headers set by earlier middleware behave as
 * with send alone.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { staticFiles } from 'fw/middleware';
import { send, startApp, type Started } from './support/test-app';

let root: string;
let s: Started;

/** The first request fills the cache in the background; poll (bounded) until a request is served from it. */
async function warm(path: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    await send(s.port, { path });
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fw-static-cache-'));
  writeFileSync(join(root, 'style.css'), 'body { margin: 0 }\n'.repeat(100));
  writeFileSync(join(root, 'data.bin'), Buffer.alloc(300, 7));
  writeFileSync(join(root, 'change.txt'), 'version one');
  s = await startApp((app) => {
    app.use('/preset', (_req: unknown, res: { setHeader(n: string, v: string): void }, next: () => void) => {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', 'text/x-custom');
      next();
    });
    app.use('/preset', staticFiles({ root }));
    app.use('/s', staticFiles({ root, maxAge: '2h', immutable: true }));
  });
});

afterAll(async () => {
  await s.close();
  rmSync(root, { recursive: true, force: true });
});

const headersOf = (h: Record<string, unknown>): Record<string, unknown> => {
  const { date: _date, ...rest } = h;
  return rest;
};

test('a cached answer has the same status, headers and body as send gave', async () => {
  const first = await send(s.port, { path: '/s/style.css' });
  await warm('/s/style.css');
  const cached = await send(s.port, { path: '/s/style.css' });
  expect(cached.status).toBe(200);
  expect(cached.text).toBe(first.text);
  expect(headersOf(cached.headers)).toEqual(headersOf(first.headers));
  expect(cached.headers['cache-control']).toBe('public, max-age=7200, immutable');
  expect(cached.headers['content-type']).toBe('text/css; charset=utf-8');
  expect(cached.headers['accept-ranges']).toBe('bytes');
});

test('binary files and HEAD', async () => {
  await warm('/s/data.bin');
  const r = await send(s.port, { path: '/s/data.bin' });
  expect(r.body.equals(Buffer.alloc(300, 7))).toBe(true);
  expect(r.headers['content-type']).toBe('application/octet-stream');
  const head = await send(s.port, { method: 'HEAD', path: '/s/data.bin' });
  expect(head.status).toBe(200);
  expect(head.headers['content-length']).toBe('300');
  expect(head.body.length).toBe(0);
});

test('a changed file is served fresh, never from the stale cache', async () => {
  await warm('/s/change.txt');
  expect((await send(s.port, { path: '/s/change.txt' })).text).toBe('version one');
  writeFileSync(join(root, 'change.txt'), 'version two');
  // Same size, and mtime forced back to the old second: ctime/ino/mtimeMs still tell.
  expect((await send(s.port, { path: '/s/change.txt' })).text).toBe('version two');
  const later = new Date(Date.now() + 5000);
  writeFileSync(join(root, 'change.txt'), 'version three!');
  utimesSync(join(root, 'change.txt'), later, later);
  expect((await send(s.port, { path: '/s/change.txt' })).text).toBe('version three!');
  rmSync(join(root, 'change.txt'));
  expect((await send(s.port, { path: '/s/change.txt' })).status).toBe(404);
});

test('Range and conditional requests still get send\'s answers on a cached file', async () => {
  await warm('/s/style.css');
  const full = await send(s.port, { path: '/s/style.css' });
  const range = await send(s.port, { path: '/s/style.css', headers: { range: 'bytes=0-3' } });
  expect(range.status).toBe(206);
  expect(range.text).toBe('body');
  const notModified = await send(s.port, { path: '/s/style.css', headers: { 'if-none-match': String(full.headers['etag']) } });
  expect(notModified.status).toBe(304);
  const failed = await send(s.port, { path: '/s/style.css', headers: { 'if-match': '"nope"' } });
  expect(failed.status).toBe(412);
});

test('headers set by earlier middleware are kept, as send keeps them', async () => {
  await warm('/preset/style.css');
  const r = await send(s.port, { path: '/preset/style.css' });
  expect(r.status).toBe(200);
  expect(r.headers['cache-control']).toBe('no-store');
  expect(r.headers['content-type']).toBe('text/x-custom');
});
