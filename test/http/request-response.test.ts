/** Spec 4.4: the request and response objects — both transports. */
import { server, FwRequest, FwResponse, type FwApplication } from 'fw';
import { bothWays, json } from './support/both-ways';

const finished: number[] = [];

function buildApp(): FwApplication {
  const app = server.http().withLogger({ error: () => undefined });
  app.get('/inspect/:id', (req, res) => {
    const pairs: [string, string | string[]][] = [];
    for (const pair of req.headers) pairs.push(pair);
    res.json({
      isFwRequest: req instanceof FwRequest,
      isFwResponse: res instanceof FwResponse,
      method: req.method,
      url: req.url,
      path: req.path,
      query: req.query,
      queryProto: Object.getPrototypeOf(req.query) === null,
      params: req.params,
      paramsInheritNothing: !('toString' in req.params) && !('constructor' in req.params) && !('__proto__' in req.params),
      header: req.headers['x-custom'],
      viaGet: req.get('X-CUSTOM'),
      iterated: pairs.find(([name]) => name === 'x-custom'),
      spreadKeys: Object.keys({ ...req.headers }).includes('x-custom'),
      ip: req.ip,
      body: req.body === undefined ? 'undefined' : req.body,
      hostname: req.hostname,
      protocol: req.protocol,
    });
  });
  app.post('/echo-stream', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res.type('text/plain').end(Buffer.concat(chunks).toString('utf8').toUpperCase()));
  });
  app.get('/html', (req, res) => res.html('<h1>hi</h1>'));
  app.get('/status', (req, res) => res.status(202).json({ accepted: true }));
  app.delete('/item', (req, res) => res.status(204).send());
  app.get('/end', (req, res) => res.end('plain end'));
  app.get('/header', (req, res) => res.header('X-One', '1').set({ 'X-Two': '2' }).append('X-Two', '3').json({ got: res.get('x-one') }));
  app.get('/type', (req, res) => res.type('text').send('typed'));
  app.get('/type-ext', (req, res) => res.type('json').send('{"a":1}'));
  app.get('/bytes', (req, res) => res.send(Buffer.from([1, 2, 3])));
  app.get('/object', (req, res) => res.send({ sent: 'object' }));
  app.get('/stream', (req, res) => {
    res.type('text/plain');
    res.write('one,');
    res.write('two,');
    setTimeout(() => res.end('three'), 5);
  });
  app.get('/finish', (req, res) => {
    res.on('finish', () => finished.push(res.statusCode));
    res.status(201).json({});
  });
  app.get('/cookie', (req, res) => res.cookie('a', '1', { httpOnly: true, maxAge: 60_000 }).cookie('b', { x: 1 }).clearCookie('old').json({}));
  app.get('/redirect', (req, res) => res.redirect('/target'));
  app.get('/redirect-301', (req, res) => res.redirect(301, '/moved'));
  app.get('/send-status', (req, res) => res.sendStatus(418));
  app.get('/locals', (req, res, next) => { res.locals.user = 'ann'; next(); }, (req, res) => res.json({ user: res.locals.user }));
  app.get('/bad-status', (req, res) => res.status(42));
  return app;
}

bothWays('request and response', buildApp, (client) => {
  const get = (path: string, init?: RequestInit) => client().request(path, init);

  test('req fields', async () => {
    const r = await get('/inspect/42?page=2&tag=a&tag=b', { headers: { 'X-Custom': 'yes' } });
    const body = await json(r);
    expect(body.isFwRequest).toBe(true);
    expect(body.isFwResponse).toBe(true);
    expect(body.method).toBe('GET');
    expect(body.url).toBe(`${client().base}/inspect/42?page=2&tag=a&tag=b`);
    expect(body.path).toBe('/inspect/42');
    expect(body.query).toEqual({ page: '2', tag: ['a', 'b'] });
    expect(body.queryProto).toBe(true);
    expect(body.params).toEqual({ id: '42' });
    expect(body.paramsInheritNothing).toBe(true);
    expect(body.header).toBe('yes');
    expect(body.viaGet).toBe('yes');
    expect(body.iterated).toEqual(['x-custom', 'yes']);
    expect(body.spreadKeys).toBe(true);
    expect(body.ip).toMatch(/127\.0\.0\.1/);
    expect(body.body).toBe('undefined');
    expect(body.hostname).toBe(new URL(client().base).hostname);
    expect(body.protocol).toBe('http');
  });

  test('req is a readable stream (req.on)', async () => {
    const r = await get('/echo-stream', { method: 'POST', body: 'hello body' });
    expect(await r.text()).toBe('HELLO BODY');
  });

  test('res.html', async () => {
    const r = await get('/html');
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await r.text()).toBe('<h1>hi</h1>');
  });

  test('res.status is chainable', async () => {
    const r = await get('/status');
    expect(r.status).toBe(202);
    expect(await json(r)).toEqual({ accepted: true });
  });

  test('res.status(204).send() has no body', async () => {
    const r = await get('/item', { method: 'DELETE' });
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
  });

  test('res.end(string)', async () => {
    expect(await (await get('/end')).text()).toBe('plain end');
  });

  test('res.header / set / append / get', async () => {
    const r = await get('/header');
    expect(r.headers.get('x-one')).toBe('1');
    expect(r.headers.get('x-two')).toBe('2, 3');
    expect(await json(r)).toEqual({ got: '1' });
  });

  test('res.type with a MIME type or an extension', async () => {
    expect((await get('/type')).headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const r = await get('/type-ext');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await json(r)).toEqual({ a: 1 });
  });

  test('res.send with bytes and objects', async () => {
    const bytes = await get('/bytes');
    expect(bytes.headers.get('content-type')).toBe('application/octet-stream');
    expect([...new Uint8Array(await bytes.arrayBuffer())]).toEqual([1, 2, 3]);
    expect(await json(await get('/object'))).toEqual({ sent: 'object' });
  });

  test('res.write streams chunks', async () => {
    const r = await get('/stream');
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
    expect(await r.text()).toBe('one,two,three');
  });

  test("res.on('finish')", async () => {
    finished.length = 0;
    await (await get('/finish')).text();
    expect(finished).toEqual([201]);
  });

  test('res.cookie and clearCookie', async () => {
    const r = await get('/cookie');
    const cookies = r.headers.getSetCookie();
    expect(cookies[0]).toMatch(/^a=1; Max-Age=60; Path=\/; Expires=.*; HttpOnly$/);
    expect(cookies[1]).toBe('b=j%3A%7B%22x%22%3A1%7D; Path=/');
    expect(cookies[2]).toMatch(/^old=; Path=\/; Expires=Thu, 01 Jan 1970/);
  });

  test('res.redirect', async () => {
    const r = await get('/redirect', { redirect: 'manual' });
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/target');
    const moved = await get('/redirect-301', { redirect: 'manual' });
    expect(moved.status).toBe(301);
  });

  test('res.sendStatus and res.locals', async () => {
    const r = await get('/send-status');
    expect(r.status).toBe(418);
    expect(await r.text()).toBe("I'm a Teapot");
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await json(await get('/locals'))).toEqual({ user: 'ann' });
  });

  test('an invalid status code is refused with a clear error', async () => {
    const r = await get('/bad-status');
    expect(r.status).toBe(500);
  });
});
