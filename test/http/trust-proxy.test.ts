/** Express's `trust proxy`: X-Forwarded-* count only from trusted proxies — both transports. */
import { server, type FwApplication } from 'fw';
import { bothWays, json } from './support/both-ways';

const FORWARDED = { 'X-Forwarded-For': '203.0.113.7, 10.0.0.2', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com' };

function buildApp(trust: unknown): FwApplication {
  const app = server.http();
  if (trust !== undefined) app.set('trust proxy', trust);
  app.get('/who', (req, res) => res.json({ ip: req.ip, ips: req.ips, protocol: req.protocol, hostname: req.hostname }));
  return app;
}

bothWays('trust proxy off (default)', () => buildApp(undefined), (client) => {
  test('forwarded headers are ignored', async () => {
    const body = await json(await client().request('/who', { headers: FORWARDED }));
    expect(body.ip).toMatch(/127\.0\.0\.1/);
    expect(body.ips).toEqual([]);
    expect(body.protocol).toBe('http');
    expect(body.hostname).not.toBe('api.example.com');
  });
});

bothWays('trust proxy loopback + private range', () => buildApp('loopback, 10.0.0.0/8'), (client) => {
  test('forwarded client, protocol and host are used', async () => {
    const body = await json(await client().request('/who', { headers: FORWARDED }));
    expect(body).toEqual({ ip: '203.0.113.7', ips: ['203.0.113.7', '10.0.0.2'], protocol: 'https', hostname: 'api.example.com' });
  });
});

bothWays('trust proxy: one hop', () => buildApp(1), (client) => {
  test('only the nearest forwarded address is believed', async () => {
    const body = await json(await client().request('/who', { headers: FORWARDED }));
    expect(body.ip).toBe('10.0.0.2');
  });
});

test('an invalid trust proxy setting is refused', () => {
  expect(() => server.http().set('trust proxy', 'not-an-address')).toThrow();
  expect(() => server.http().set('trust proxy', -1)).toThrow(/non-negative integer/);
});
