/** Spec 4.4 sendFile / download: content type, Range, conditional GET, rejection — both transports. */
import { join } from 'node:path';
import { server, type FwApplication } from 'fw';
import { bothWays, json } from './support/both-ways';

const FILES = join(__dirname, 'fixtures', 'files');

function buildApp(): FwApplication {
  const app = server.http().withLogger({ error: () => undefined });
  app.get('/file/:name', async (req, res) => {
    await res.sendFile(join(FILES, req.params.name!));
  });
  app.get('/rooted/*', (req, res) => res.sendFile(req.params['*']!, { root: FILES }));
  app.get('/download', (req, res) => res.download(join(FILES, 'hello.txt'), 'greeting.txt'));
  app.get('/caught', async (req, res) => {
    try {
      await res.sendFile(join(FILES, 'missing.txt'));
    } catch (error) {
      res.status(404).json({ caught: (error as { statusCode: number }).statusCode });
    }
  });
  app.get('/relative', (req, res) => res.sendFile('hello.txt'));
  return app;
}

bothWays('sendFile and download', buildApp, (client) => {
  const get = (path: string, init?: RequestInit) => client().request(path, init);

  test('sends the file with its content type', async () => {
    const r = await get('/file/hello.txt');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await r.text()).toBe('hello file contents\n');
    const html = await get('/file/page.html');
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  test('supports Range', async () => {
    const r = await get('/file/hello.txt', { headers: { Range: 'bytes=0-4' } });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe('bytes 0-4/20');
    expect(await r.text()).toBe('hello');
  });

  test('an unsatisfiable Range is 416', async () => {
    const r = await get('/file/hello.txt', { headers: { Range: 'bytes=100-200' } });
    expect(r.status).toBe(416);
  });

  test('supports conditional GET', async () => {
    const first = await get('/file/hello.txt');
    await first.text();
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await client().raw('/file/hello.txt', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    const since = await client().raw('/file/hello.txt', { 'If-Modified-Since': first.headers.get('last-modified')! });
    expect(since.status).toBe(304);
    const stale = await client().raw('/file/hello.txt', { 'If-None-Match': '"other"' });
    expect(stale.status).toBe(200);
  });

  test('rejects when the file cannot be read (404 through the error handling)', async () => {
    const r = await get('/file/missing.txt');
    expect(r.status).toBe(404);
    expect((await json(r)).error).toMatch(/not found/i);
    expect(await json(await get('/caught'))).toEqual({ caught: 404 });
  });

  test('dot-files and traversal are refused', async () => {
    expect((await get('/file/.hidden')).status).toBe(404);
    expect((await get('/rooted/..%2F..%2Fpackage.json')).status).toBeGreaterThanOrEqual(400);
    expect((await get('/rooted/hello.txt')).status).toBe(200);
  });

  test('a relative path without root is refused', async () => {
    expect((await get('/relative')).status).toBe(500);
  });

  test('download sets Content-Disposition', async () => {
    const r = await get('/download');
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="?greeting.txt"?$/);
    expect(await r.text()).toBe('hello file contents\n');
  });

  test('HEAD sends headers only', async () => {
    const r = await get('/file/hello.txt', { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBe('20');
    expect(await r.text()).toBe('');
  });
});
