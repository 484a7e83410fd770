/**
 * json / urlencoded / raw / text over real sockets, and every refusal:
 * malformed JSON, bodies over the limit (declared or chunked), prototype keys.
 * After each refusal the same server must still answer.
 */
import { gzipSync } from 'node:zlib';
import { json, raw, text, urlencoded } from 'fw/middleware';
import { postJson, send, startApp, type Started } from './support/test-app';

type Req = { body: unknown; query: unknown };
type Res = { json(v: unknown): void };

const echo = (req: Req, res: Res) => res.json({ body: req.body });

let s: Started;

beforeAll(async () => {
  s = await startApp((app) => {
    app.post('/json', json(), echo);
    app.post('/json-small', json({ limit: '1kb' }), echo);
    app.post('/json-twice', json(), json(), echo);
    app.post('/form', urlencoded({ extended: false }), echo);
    app.post('/form-nested', urlencoded({ extended: true }), echo);
    app.post('/raw', raw({ type: 'application/octet-stream' }), (req: Req, res: Res) => {
      const body = req.body as Buffer;
      res.json({ isBuffer: Buffer.isBuffer(body), length: body.length, first: body[0] });
    });
    app.post('/text', text({ type: 'text/plain' }), (req: Req, res: Res) => res.json({ type: typeof req.body, body: req.body }));
    app.get('/alive', (_req: Req, res: Res) => res.json({ ok: true }));
  });
});

afterAll(() => s.close());

async function expectAlive(): Promise<void> {
  const r = await send(s.port, { path: '/alive' });
  expect(r.status).toBe(200);
  expect(r.json).toEqual({ ok: true });
}

describe('json()', () => {
  test('parses a JSON body into req.body', async () => {
    const r = await postJson(s.port, '/json', JSON.stringify({ name: 'Ada', roles: ['admin'], address: { city: 'London' } }));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ body: { name: 'Ada', roles: ['admin'], address: { city: 'London' } } });
  });

  test('inflates a gzip body', async () => {
    const r = await send(s.port, {
      method: 'POST',
      path: '/json',
      body: gzipSync(JSON.stringify({ zipped: true })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(r.json).toEqual({ body: { zipped: true } });
  });

  test('leaves other content types alone', async () => {
    const r = await send(s.port, { method: 'POST', path: '/json', body: 'a=1', headers: { 'content-type': 'text/plain' } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({});
  });

  test('malformed JSON → 400 {error}', async () => {
    const r = await postJson(s.port, '/json', '{"name": "Ada",');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: expect.stringMatching(/^Malformed JSON body/) });
    await expectAlive();
  });

  test('a top-level scalar is refused in strict mode → 400', async () => {
    const r = await postJson(s.port, '/json', '"just a string"');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: expect.any(String) });
  });

  test('body over the default 1 MiB limit (Content-Length) → 413 {error}', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const r = await postJson(s.port, '/json', big);
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ error: expect.stringMatching(/larger than the 1MB limit/) });
    await expectAlive();
  });

  test('chunked body with no Content-Length over the limit → 413', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = ['{"pad":"', ...Array.from({ length: 20 }, () => chunk), '"}'];
    const r = await send(s.port, { method: 'POST', path: '/json', chunks, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ error: expect.stringMatching(/larger than/) });
    await expectAlive();
  });

  test('chunked body in one-byte chunks is parsed; an empty chunked body is {} as body-parser gives it', async () => {
    const text = JSON.stringify({ pad: 'y'.repeat(2000), n: 1 });
    const r = await send(s.port, { method: 'POST', path: '/json', chunks: [...text], headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ body: { pad: 'y'.repeat(2000), n: 1 } });
    const empty = await send(s.port, { method: 'POST', path: '/json', chunks: [], headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ body: {} });
  });

  test('a gzip bomb is measured inflated → 413', async () => {
    const bomb = gzipSync(Buffer.from(`{"pad":"${'a'.repeat(4 * 1024 * 1024)}"}`));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const r = await send(s.port, {
      method: 'POST',
      path: '/json',
      body: bomb,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(r.status).toBe(413);
  });

  test('an explicit limit wins: 1kb', async () => {
    const ok = await postJson(s.port, '/json-small', JSON.stringify({ pad: 'x'.repeat(500) }));
    expect(ok.status).toBe(200);
    const r = await postJson(s.port, '/json-small', JSON.stringify({ pad: 'x'.repeat(2000) }));
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ error: expect.stringMatching(/1KB limit/) });
  });

  test.each([
    ['__proto__ at the top', '{"__proto__": {"polluted": true}}'],
    ['__proto__ nested', '{"user": {"profile": {"__proto__": {"polluted": true}}}}'],
    ['__proto__ in an array', '[{"a": 1}, {"__proto__": {"polluted": true}}]'],
    ['constructor.prototype', '{"constructor": {"prototype": {"polluted": true}}}'],
    ['unicode-escaped __proto__', '{"\\u005f_proto__": {"polluted": true}}'],
    ['unicode-escaped constructor', '{"\\u0063onstructor": {"prototype": {"polluted": true}}}'],
  ])('%s → 400, nothing polluted', async (_name, body) => {
    const r = await postJson(s.port, '/json', body);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: expect.stringMatching(/forbidden key/) });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    await expectAlive();
  });

  test('keys that merely mention proto or constructor are fine', async () => {
    const body = { protocol: 'grpc', constructor: 'Ada', proto: { prototype: 1 } };
    const r = await postJson(s.port, '/json', JSON.stringify(body));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ body });
  });

  test('unsupported charset → 415', async () => {
    const r = await postJson(s.port, '/json', '{}', { 'content-type': 'application/json; charset=latin1' });
    expect(r.status).toBe(415);
    expect(r.json).toEqual({ error: expect.stringMatching(/charset/i) });
  });
});

describe('json() fast path and its fallbacks give the same answers', () => {
  test.each([
    ['application/json; charset=utf-8'],
    ['Application/JSON'],
    ['application/vnd.api+json'],
    ['application/json; charset=UTF-8'],
  ])('content type %s', async (type) => {
    const r = await postJson(s.port, '/json', '{"a":[1,2,{"b":null}]}', { 'content-type': type });
    if (type === 'application/vnd.api+json') {
      // Not matched by the default type: json() leaves it alone.
      expect(r.json).toEqual({});
    } else {
      expect(r.json).toEqual({ body: { a: [1, 2, { b: null }] } });
    }
  });

  test('a second json() on the same request keeps the parsed body', async () => {
    const r = await postJson(s.port, '/json-twice', '{"once":true}');
    expect(r.json).toEqual({ body: { once: true } });
  });

  test('a UTF-8 byte order mark is skipped', async () => {
    const r = await postJson(s.port, '/json', '\uFEFF{"bom":true}');
    expect(r.json).toEqual({ body: { bom: true } });
  });

  test('multi-byte characters split across packets', async () => {
    const body = JSON.stringify({ name: 'Zoë 日本語 😀'.repeat(2000) });
    const r = await postJson(s.port, '/json', body);
    expect(r.json).toEqual({ body: JSON.parse(body) });
  });

  test('strict mode names what it found', async () => {
    const r = await postJson(s.port, '/json', '  42');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: expect.stringMatching(/^Malformed JSON body/) });
  });

  test('a client that disconnects mid-body does not disturb the server', async () => {
    const { connect } = await import('node:net');
    await new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: s.port }, () => {
        socket.write('POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"partial":');
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    await expectAlive();
  });
});

describe('urlencoded()', () => {
  test('flat form', async () => {
    const r = await send(s.port, { method: 'POST', path: '/form', body: 'name=Ada&role=admin&role=dev', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.json).toEqual({ body: { name: 'Ada', role: ['admin', 'dev'] } });
  });

  test('extended form nests', async () => {
    const r = await send(s.port, { method: 'POST', path: '/form-nested', body: 'user[name]=Ada&user[address][city]=London', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.json).toEqual({ body: { user: { name: 'Ada', address: { city: 'London' } } } });
  });

  test.each([
    ['/form', '__proto__=x'],
    ['/form', '%5F%5Fproto%5F%5F=x'],
    ['/form-nested', 'constructor[prototype][polluted]=yes'],
  ])('prototype keys in a form (%s %s) → 400', async (path, body) => {
    const r = await send(s.port, { method: 'POST', path, body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: expect.stringMatching(/forbidden key/) });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('more than 1000 parameters → 413', async () => {
    const body = Array.from({ length: 1001 }, (_, i) => `k${i}=v`).join('&');
    const r = await send(s.port, { method: 'POST', path: '/form', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ error: expect.stringMatching(/Too many parameters/) });
    await expectAlive();
  });
});

describe('raw() and text()', () => {
  test('raw gives a Buffer', async () => {
    const r = await send(s.port, { method: 'POST', path: '/raw', body: Buffer.from([7, 8, 9]), headers: { 'content-type': 'application/octet-stream' } });
    expect(r.json).toEqual({ isBuffer: true, length: 3, first: 7 });
  });

  test('raw over the limit → 413', async () => {
    const r = await send(s.port, { method: 'POST', path: '/raw', body: Buffer.alloc(1024 * 1024 + 1), headers: { 'content-type': 'application/octet-stream' } });
    expect(r.status).toBe(413);
  });

  test('text gives a string', async () => {
    const r = await send(s.port, { method: 'POST', path: '/text', body: 'héllo', headers: { 'content-type': 'text/plain; charset=utf-8' } });
    expect(r.json).toEqual({ type: 'string', body: 'héllo' });
  });
});
