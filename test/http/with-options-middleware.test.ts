/** withOptions' cors / maxRequestBodySize keys install the real fw/middleware handlers ahead of the routes — both transports. */
import { server } from 'fw';
import { json as parseJson } from 'fw/middleware';
import { bothWays } from './support/both-ways';

bothWays('withOptions global middleware', () => {
  const app = server.http().withOptions({ cors: { origin: 'http://a.test', credentials: true }, maxRequestBodySize: '1kb' });
  app.get('/data', (req, res) => res.json({ ok: true }));
  app.post('/echo', parseJson(), (req, res) => res.json(req.body));
  return app;
}, (client) => {
  test('cors headers come from withOptions', async () => {
    const r = await client().request('/data', { headers: { Origin: 'http://a.test' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('http://a.test');
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
  });

  test('a body over maxRequestBodySize is refused with 413', async () => {
    const small = await client().request('/echo', { method: 'POST', body: JSON.stringify({ a: 1 }), headers: { 'content-type': 'application/json' } });
    expect(await small.json()).toEqual({ a: 1 });
    const big = await client().request('/echo', { method: 'POST', body: JSON.stringify({ a: 'x'.repeat(4096) }), headers: { 'content-type': 'application/json' } });
    expect(big.status).toBe(413);
    await big.text();
  });
});
