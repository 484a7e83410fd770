/**
 * multer(): single-file uploads to disk, and the refusals — file over
 * fileSize (413, partial file removed from disk), fileFilter rejection (400),
 * missing required file (400), more than 1000 parts (413), malformed body (400).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStorage, multer, type IncomingFile, type UploadedFile } from 'fw/middleware';
import { send, startApp, type Started } from './support/test-app';

type Req = { file?: UploadedFile; body: unknown };
type Res = { status(n: number): Res; json(v: unknown): void };

const BOUNDARY = '----fwtestboundary';

function multipart(parts: ReadonlyArray<{ name: string; filename?: string; type?: string; content: string | Buffer }>): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.filename === undefined ? '' : `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const formHeaders = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

let dest: string;
let s: Started;

beforeAll(async () => {
  dest = mkdtempSync(join(tmpdir(), 'fw-upload-'));
  const upload = multer({
    dest,
    limits: { fileSize: 1024 },
    fileFilter: (_req, file: IncomingFile, cb) => (file.mimetype.startsWith('image/') ? cb(null, true) : cb(new Error('Only image files are accepted'))),
  });
  const defaults = multer({ dest });
  const handler = (req: Req, res: Res) => {
    if (!req.file) return res.status(400).json({ error: 'No file uploaded' });
    const { filename, originalname, size, mimetype, path } = req.file;
    res.json({ filename, originalname, size, mimetype, path, body: req.body });
  };
  s = await startApp((app) => {
    app.post('/avatar', upload.single('avatar'), handler);
    app.post('/defaults', defaults.single('doc'), handler);
    app.get('/alive', (_req: Req, res: Res) => res.json({ ok: true }));
  });
});

afterAll(async () => {
  await s.close();
  rmSync(dest, { recursive: true, force: true });
});

async function expectAlive(): Promise<void> {
  expect((await send(s.port, { path: '/alive' })).status).toBe(200);
}

test('single(field) stores the file and fills req.file', async () => {
  const body = multipart([
    { name: 'caption', content: 'me' },
    { name: 'avatar', filename: 'me.png', type: 'image/png', content: Buffer.alloc(300, 1) },
  ]);
  const r = await send(s.port, { method: 'POST', path: '/avatar', body, headers: formHeaders });
  expect(r.status).toBe(200);
  const file = r.json as { filename: string; originalname: string; size: number; mimetype: string; path: string; body: unknown };
  expect(file).toMatchObject({ originalname: 'me.png', size: 300, mimetype: 'image/png', body: { caption: 'me' } });
  expect(file.filename).toMatch(/^[0-9a-f]{32}$/);
  expect(readFileSync(join(dest, file.filename)).length).toBe(300);
  rmSync(join(dest, file.filename));
});

test('file over limits.fileSize → 413 and the partial file is removed from disk', async () => {
  const before = readdirSync(dest);
  const body = multipart([{ name: 'avatar', filename: 'big.png', type: 'image/png', content: Buffer.alloc(64 * 1024, 2) }]);
  const r = await send(s.port, { method: 'POST', path: '/avatar', body, headers: formHeaders });
  expect(r.status).toBe(413);
  expect(r.json).toEqual({ error: expect.stringMatching(/larger than the 1024-byte limit/) });
  expect(readdirSync(dest)).toEqual(before);
  await expectAlive();
});

test('fileFilter rejection → 400 with its message', async () => {
  const body = multipart([{ name: 'avatar', filename: 'notes.txt', type: 'text/plain', content: 'hello' }]);
  const r = await send(s.port, { method: 'POST', path: '/avatar', body, headers: formHeaders });
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: 'Upload rejected: Only image files are accepted' });
  expect(readdirSync(dest)).toEqual([]);
});

test('missing required file → 400 {error}', async () => {
  const body = multipart([{ name: 'caption', content: 'no file here' }]);
  const r = await send(s.port, { method: 'POST', path: '/avatar', body, headers: formHeaders });
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: 'No file uploaded' });
});

test('a file in an unexpected field → 400', async () => {
  const body = multipart([{ name: 'other', filename: 'x.png', type: 'image/png', content: 'x' }]);
  const r = await send(s.port, { method: 'POST', path: '/avatar', body, headers: formHeaders });
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: expect.stringMatching(/Unexpected file field/) });
});

test('more than 1000 parts → 413 (default limit)', async () => {
  const parts = Array.from({ length: 1001 }, (_, i) => ({ name: `f${i}`, content: 'v' }));
  const r = await send(s.port, { method: 'POST', path: '/defaults', body: multipart(parts), headers: formHeaders });
  expect(r.status).toBe(413);
  expect(r.json).toEqual({ error: 'Upload has more than 1000 parts' });
  await expectAlive();
});

test('default 10 MiB per file: a 10 MiB + 1 file → 413', async () => {
  const body = multipart([{ name: 'doc', filename: 'big.bin', content: Buffer.alloc(10 * 1024 * 1024 + 1) }]);
  const r = await send(s.port, { method: 'POST', path: '/defaults', body, headers: formHeaders });
  expect(r.status).toBe(413);
  expect(readdirSync(dest)).toEqual([]);
});

test('malformed multipart body → 400', async () => {
  const body = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\n\r\nunterminated`);
  const r = await send(s.port, { method: 'POST', path: '/defaults', body, headers: formHeaders });
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: expect.stringMatching(/Malformed multipart body/) });
  expect(readdirSync(dest)).toEqual([]);
  await expectAlive();
});

test('prototype keys in multipart fields → 400', async () => {
  const body = multipart([{ name: 'constructor[prototype][polluted]', content: 'yes' }]);
  const r = await send(s.port, { method: 'POST', path: '/defaults', body, headers: formHeaders });
  expect(r.status).toBe(400);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('other upload shapes', () => {
  let t: Started;
  type FilesReq = { file?: UploadedFile; files?: UploadedFile[]; body: unknown };
  beforeAll(async () => {
    const inMemory = multer({ storage: memoryStorage(), limits: { files: 2 } });
    t = await startApp((app) => {
      app.post('/memory', inMemory.single('doc'), (req: FilesReq, res: Res) =>
        res.json({ text: req.file?.buffer?.toString(), size: req.file?.size, path: req.file?.path ?? null }),
      );
      app.post('/many', inMemory.array('docs', 2), (req: FilesReq, res: Res) => res.json({ names: req.files?.map((f) => f.originalname) }));
      app.post('/fields-only', inMemory.none(), (req: FilesReq, res: Res) => res.json({ body: req.body }));
    });
  });
  afterAll(() => t.close());

  test('memory storage (no dest): req.file.buffer, nothing on disk', async () => {
    const body = multipart([{ name: 'doc', filename: 'a.txt', type: 'text/plain', content: 'in memory' }]);
    const r = await send(t.port, { method: 'POST', path: '/memory', body, headers: formHeaders });
    expect(r.json).toEqual({ text: 'in memory', size: 9, path: null });
  });

  test('array(field, max): req.files; one over max → 400/413', async () => {
    const two = multipart([
      { name: 'docs', filename: 'a.txt', content: 'a' },
      { name: 'docs', filename: 'b.txt', content: 'b' },
    ]);
    expect((await send(t.port, { method: 'POST', path: '/many', body: two, headers: formHeaders })).json).toEqual({ names: ['a.txt', 'b.txt'] });
    const three = multipart([
      { name: 'docs', filename: 'a.txt', content: 'a' },
      { name: 'docs', filename: 'b.txt', content: 'b' },
      { name: 'docs', filename: 'c.txt', content: 'c' },
    ]);
    const r = await send(t.port, { method: 'POST', path: '/many', body: three, headers: formHeaders });
    expect([400, 413]).toContain(r.status);
    expect(r.json).toEqual({ error: expect.any(String) });
  });

  test('none(): fields parse, a file is refused with 400', async () => {
    const fields = multipart([{ name: 'title', content: 'hello' }]);
    expect((await send(t.port, { method: 'POST', path: '/fields-only', body: fields, headers: formHeaders })).json).toEqual({ body: { title: 'hello' } });
    const withFile = multipart([{ name: 'title', filename: 'x.txt', content: 'x' }]);
    const r = await send(t.port, { method: 'POST', path: '/fields-only', body: withFile, headers: formHeaders });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: expect.stringMatching(/Unexpected file field/) });
  });
});
