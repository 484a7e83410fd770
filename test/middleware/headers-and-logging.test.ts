/**
 * cors(), compression(), helmet() and morgan() over real sockets.
 */
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { compression, cors, helmet, morgan } from 'fw/middleware';
import { send, startApp, type Started } from './support/test-app';

type Res = { json(v: unknown): void };
const lines: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(chunk.toString());
    done();
  },
});

let s: Started;
const bigPayload = { items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `user-${i}` })) };

beforeAll(async () => {
  s = await startApp((app) => {
    app.use('/cors', cors({ origin: ['https://a.example', 'https://b.example'], credentials: true, methods: ['GET', 'POST'] }));
    app.get('/cors/data', (_req: unknown, res: Res) => res.json({ ok: true }));
    app.use('/open', cors());
    app.get('/open/data', (_req: unknown, res: Res) => res.json({ ok: true }));
    app.use('/zip', compression({ threshold: 1024, level: 6 }));
    app.get('/zip/big', (_req: unknown, res: Res) => res.json(bigPayload));
    app.get('/zip/small', (_req: unknown, res: Res) => res.json({ ok: true }));
    app.use('/secure', helmet());
    app.get('/secure/page', (_req: unknown, res: Res) => res.json({ ok: true }));
    app.use('/logged', morgan('tiny', { stream: logStream }));
    app.get('/logged/thing', (_req: unknown, res: Res) => res.json({ ok: true }));
  });
});

afterAll(() => s.close());

describe('cors()', () => {
  test('an allowed origin is echoed with credentials', async () => {
    const r = await send(s.port, { path: '/cors/data', headers: { origin: 'https://b.example' } });
    expect(r.headers['access-control-allow-origin']).toBe('https://b.example');
    expect(r.headers['access-control-allow-credentials']).toBe('true');
    expect(r.headers['vary']).toMatch(/Origin/);
  });

  test('an unknown origin gets no allow-origin header', async () => {
    const r = await send(s.port, { path: '/cors/data', headers: { origin: 'https://evil.example' } });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('a preflight is answered 204 with the allowed methods', async () => {
    const r = await send(s.port, {
      method: 'OPTIONS',
      path: '/cors/data',
      headers: { origin: 'https://a.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-methods']).toBe('GET,POST');
    expect(r.headers['access-control-allow-headers']).toBe('content-type');
  });

  test('cors() with no options allows any origin', async () => {
    const r = await send(s.port, { path: '/open/data', headers: { origin: 'https://x.example' } });
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('compression()', () => {
  test('bodies above the threshold are gzipped when accepted', async () => {
    const r = await send(s.port, { path: '/zip/big', headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(r.body).toString())).toEqual(bigPayload);
    expect(r.body.length).toBeLessThan(JSON.stringify(bigPayload).length);
  });

  test('bodies below the threshold are sent as they are', async () => {
    const r = await send(s.port, { path: '/zip/small', headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.json).toEqual({ ok: true });
  });

  test('no Accept-Encoding, no compression', async () => {
    const r = await send(s.port, { path: '/zip/big' });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.json).toEqual(bigPayload);
  });

  test('an out-of-range level is a configuration error', () => {
    expect(() => compression({ level: 12 })).toThrow(TypeError);
  });
});

test('helmet() sets the security headers', async () => {
  const r = await send(s.port, { path: '/secure/page' });
  expect(r.headers['content-security-policy']).toMatch(/default-src 'self'/);
  expect(r.headers['x-content-type-options']).toBe('nosniff');
  expect(r.headers['x-frame-options']).toBe('SAMEORIGIN');
  expect(r.headers['strict-transport-security']).toMatch(/max-age=/);
  expect(r.headers['referrer-policy']).toBe('no-referrer');
  expect(r.headers['x-powered-by']).toBeUndefined();
});

test('morgan(format) writes one line per request', async () => {
  lines.length = 0;
  await send(s.port, { path: '/logged/thing' });
  for (let i = 0; i < 50 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(lines).toHaveLength(1);
  // res.json sets Content-Length itself, so morgan logs the real size ({"ok":true} is 11 bytes).
  expect(lines[0]).toMatch(/^GET \/logged\/thing 200 11 - [\d.]+ ms\n$/);
});
