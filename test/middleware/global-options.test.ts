/**
 * withOptions({cors, compression, rateLimit, maxRequestBodySize}) installs
 * the same middleware globally (runtime/middleware/global-options.ts is the
 * seam the HTTP runtime calls).
 */
import { gunzipSync } from 'node:zlib';
import { globalMiddleware, json } from 'fw/middleware';
import { postJson, send, startApp, type Started } from './support/test-app';

type Req = { body: unknown };
type Res = { json(v: unknown): void };
const big = { items: Array.from({ length: 300 }, (_, i) => ({ id: i })) };

let s: Started;

beforeAll(async () => {
  s = await startApp(
    (app) => {
      app.post('/echo', json(), (req: Req, res: Res) => res.json({ size: JSON.stringify(req.body).length }));
      app.post('/strict', json({ limit: '1kb' }), (req: Req, res: Res) => res.json(req.body));
      app.get('/big', (_req: Req, res: Res) => res.json(big));
    },
    {
      cors: { origin: 'https://app.example', credentials: true },
      compression: { threshold: 512, level: 1 },
      rateLimit: { windowMs: 60_000, max: 1000 },
      maxRequestBodySize: '2mb',
    },
  );
});

afterAll(() => s.close());

test('cors, compression and rate-limit headers on every route', async () => {
  const r = await send(s.port, { path: '/big', headers: { origin: 'https://app.example', 'accept-encoding': 'gzip' } });
  expect(r.status).toBe(200);
  expect(r.headers['access-control-allow-origin']).toBe('https://app.example');
  expect(r.headers['access-control-allow-credentials']).toBe('true');
  expect(r.headers['content-encoding']).toBe('gzip');
  expect(JSON.parse(gunzipSync(r.body).toString())).toEqual(big);
  expect(r.headers['ratelimit-limit']).toBe('1000');
});

test('maxRequestBodySize raises json()’s default limit: 1.5 MB passes', async () => {
  const body = JSON.stringify({ pad: 'x'.repeat(1_500_000) });
  const r = await postJson(s.port, '/echo', body);
  expect(r.status).toBe(200);
  expect(r.json).toEqual({ size: body.length });
});

test('a declared body over maxRequestBodySize → 413 before the body is read', async () => {
  const r = await postJson(s.port, '/echo', JSON.stringify({ pad: 'x'.repeat(2_200_000) }));
  expect(r.status).toBe(413);
  expect(r.json).toEqual({ error: 'Request body is larger than the 2MB limit' });
});

test('a chunked body over maxRequestBodySize → 413', async () => {
  const chunk = 'x'.repeat(256 * 1024);
  const r = await send(s.port, {
    method: 'POST',
    path: '/echo',
    chunks: ['{"pad":"', ...Array.from({ length: 10 }, () => chunk), '"}'],
    headers: { 'content-type': 'application/json' },
  });
  expect(r.status).toBe(413);
});

test('an explicit parser limit still wins below the app limit', async () => {
  const r = await postJson(s.port, '/strict', JSON.stringify({ pad: 'x'.repeat(2000) }));
  expect(r.status).toBe(413);
});

test('a Content-Length that is not a number → 400', async () => {
  // A raw socket: Node's client refuses to send such a header.
  const { connect } = await import('node:net');
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: s.port });
    let data = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (d) => (data += d.toString()));
    socket.on('end', () => resolve(data));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12abc\r\nConnection: close\r\n\r\n{}');
  });
  expect(reply).toMatch(/^HTTP\/1\.1 400/);
});

test('globalMiddleware() returns nothing for no options, in a fixed order otherwise', () => {
  expect(globalMiddleware({})).toEqual([]);
  expect(globalMiddleware({ cors: {}, compression: {}, rateLimit: {}, maxRequestBodySize: '1mb' })).toHaveLength(4);
  expect(() => globalMiddleware({ maxRequestBodySize: 'lots' })).toThrow(TypeError);
});
