/** Spec 4.1 / 4.2: creating, configuring, listening and gracefully closing the HTTP server. */
import { connect as netConnect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { server, FwApplication } from 'fw';

function rawHttp(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, '127.0.0.1', () => socket.end(text));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => { data += c; });
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject).end();
  });
}

describe('creating servers', () => {
  test('server() defaults to HTTP; server.http() builds an FwApplication', () => {
    expect(server()).toBeInstanceOf(FwApplication);
    expect(server.http()).toBeInstanceOf(FwApplication);
  });

  test('registration methods chain', () => {
    const app = server.http();
    expect(app.get('/a', () => undefined).use(() => undefined).withOptions({}).withRoutes({})).toBe(app);
  });
});

describe('withOptions', () => {
  test('stores every option and maps the timeouts onto node:http', () => {
    const app = server.http().withOptions({
      port: 0, hostname: '127.0.0.1', development: { hmr: true, console: false }, maxRequestBodySize: '2mb',
      keepAlive: true, keepAliveTimeout: 7000, headersTimeout: 30_000, requestTimeout: 90_000,
      cors: { origin: ['http://a.test'], methods: ['GET'], credentials: true },
      compression: { threshold: 1024, level: 6 }, rateLimit: { windowMs: 60_000, max: 100 },
    });
    expect(app.serverOptions.cors?.origin).toEqual(['http://a.test']);
    expect(app.serverOptions.development).toEqual({ hmr: true, console: false });
    expect(app.maxRequestBodySize).toBe(2 * 1024 * 1024);
    expect(app.server.keepAliveTimeout).toBe(7000);
    expect(app.server.headersTimeout).toBe(30_000);
    expect(app.server.requestTimeout).toBe(90_000);
    app.withOptions({ keepAliveTimeout: 1000 });
    expect(app.server.keepAliveTimeout).toBe(1000);
    expect(app.serverOptions.hostname).toBe('127.0.0.1');
  });

  test('safe defaults: headersTimeout 60 s, requestTimeout 120 s, body 1 MiB', () => {
    const app = server.http();
    expect(app.server.headersTimeout).toBe(60_000);
    expect(app.server.requestTimeout).toBe(120_000);
    expect(app.maxRequestBodySize).toBe(1024 * 1024);
  });

  test('invalid options are refused with a clear error', () => {
    expect(() => server.http().withOptions({ port: -1 })).toThrow(/port must be an integer/);
    expect(() => server.http().withOptions({ maxRequestBodySize: 'lots' })).toThrow(/maxRequestBodySize must be a size/);
    expect(() => server.http().withOptions({ keepAlive: 'yes' as never })).toThrow(/keepAlive must be a boolean/);
    expect(() => server.http().withOptions({ headersTimeout: Number.NaN })).toThrow(/headersTimeout/);
    expect(() => server.http().withOptions({ headersTimeout: 10_000, requestTimeout: 5000 })).toThrow(/at most requestTimeout/);
    expect(() => server.http().withOptions({ cors: { origin: 5 as never } })).toThrow(/cors.origin/);
    expect(() => server.http().withOptions({ rateLimit: { max: 1.5 } })).toThrow(/rateLimit.max/);
  });

  test('global-middleware options after the app started serving are refused, not ignored', () => {
    const app = server.http();
    app.createFetchHandler();
    expect(() => app.withOptions({ cors: { origin: '*' } })).toThrow(/must be set before listen/);
    expect(() => app.withOptions({ keepAliveTimeout: 1000 })).not.toThrow();
  });

  test('keepAlive: false closes the connection after each response', async () => {
    const app = server.http().withOptions({ keepAlive: false });
    app.get('/', (req, res) => res.json({}));
    await app.listen(0, '127.0.0.1');
    try {
      const r = await get(app.url + '/');
      expect(r.headers.connection).toBe('close');
    } finally {
      await app.close();
    }
  });

  test('development.console logs each request', async () => {
    const lines: string[] = [];
    const spy = jest.spyOn(console, 'log').mockImplementation((line: string) => { lines.push(line); });
    try {
      const app = server.http().withOptions({ development: { console: true } });
      app.get('/logged', (req, res) => res.status(201).json({}));
      await (await app.createFetchHandler()(new Request('http://localhost/logged'))).text();
      expect(lines.some((l) => /^GET \/logged 201 /.test(l))).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('listen and close', () => {
  test('listen(0) resolves with the app; the bound port is exposed', async () => {
    const app = server.http().get('/', (req, res) => res.json({ ok: true }));
    expect(app.port).toBe(0);
    expect(app.address()).toBeNull();
    await expect(app.listen(0, '127.0.0.1')).resolves.toBe(app);
    expect(app.port).toBeGreaterThan(0);
    expect(app.address()?.address).toBe('127.0.0.1');
    expect(app.url).toBe(`http://127.0.0.1:${app.port}`);
    expect((await get(app.url + '/')).body).toBe('{"ok":true}');
    await app.close();
    await app.close();
  });

  test('listen uses withOptions({port, hostname})', async () => {
    const app = server.http().withOptions({ port: 0, hostname: '127.0.0.1' });
    await app.listen();
    expect(app.address()?.address).toBe('127.0.0.1');
    await app.close();
  });

  test('listen rejects a bad port and a port in use', async () => {
    await expect(server.http().listen(70000)).rejects.toThrow(/port must be an integer/);
    const first = await server.http().listen(0, '127.0.0.1');
    try {
      await expect(server.http().listen(first.port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  test('close() stops accepting, lets the in-flight request finish, then resolves', async () => {
    const app = server.http();
    let release!: () => void;
    const released = new Promise<void>((resolve) => { release = resolve; });
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => { arrived = resolve; });
    const events: string[] = [];
    app.get('/slow', async (req, res) => {
      arrived();
      await released;
      res.on('finish', () => events.push('response sent'));
      res.json({ finished: true });
    });
    await app.listen(0, '127.0.0.1');
    const port = app.port;
    const inFlight = get(app.url + '/slow');
    await arrival;
    const closing = app.close().then(() => events.push('closed'));
    // A new connection is refused while the old one is still being served.
    await expect(rawHttp(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n')).rejects.toThrow(/ECONNREFUSED/);
    expect(events).toEqual([]);
    release();
    const response = await inFlight;
    await closing;
    expect(response.status).toBe(200);
    expect(response.body).toBe('{"finished":true}');
    // The server wrote the whole response before close() resolved (the client may
    // read it before or after that, so its arrival is no ordering witness).
    expect(events).toEqual(['response sent', 'closed']);
  });

  test('a client too slow to send its headers is refused with 408 (headersTimeout)', async () => {
    const app = server.http().withOptions({ headersTimeout: 200, requestTimeout: 400 });
    app.get('/', (req, res) => res.json({}));
    await app.listen(0, '127.0.0.1');
    try {
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = netConnect(app.port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n'));
        let data = '';
        socket.setEncoding('utf8');
        socket.on('data', (c: string) => { data += c; });
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await app.close();
    }
  });

  test('malformed HTTP gets a 400 and the server keeps serving', async () => {
    const app = server.http().get('/', (req, res) => res.json({ alive: true }));
    await app.listen(0, '127.0.0.1');
    try {
      const reply = await rawHttp(app.port, 'THIS IS NOT HTTP\r\n\r\n');
      expect(reply).toMatch(/^HTTP\/1\.1 400/);
      expect((await get(app.url + '/')).body).toBe('{"alive":true}');
    } finally {
      await app.close();
    }
  });
});

describe('fetch handler', () => {
  test('streams a large request body and response', async () => {
    const app = server.http();
    app.post('/count', (req, res) => {
      let total = 0;
      req.on('data', (c: Buffer) => { total += c.length; });
      req.on('end', () => res.json({ total }));
    });
    const body = new Uint8Array(3 * 1024 * 1024).fill(97);
    const r = await app.createFetchHandler()(new Request('http://localhost/count', { method: 'POST', body }));
    expect(await r.json()).toEqual({ total: body.length });
  });

  test('reports https and the client address it is given', async () => {
    const app = server.http().get('/', (req, res) => res.json({ protocol: req.protocol, secure: req.secure, ip: req.ip }));
    const r = await app.createFetchHandler({ remoteAddress: '10.0.0.9' })(new Request('https://example.test/'));
    expect(await r.json()).toEqual({ protocol: 'https', secure: true, ip: '10.0.0.9' });
  });

  test('refuses something that is not a Request', async () => {
    await expect(server.http().createFetchHandler()('http://x/' as never)).rejects.toThrow(/expected a standard Request/);
  });
});
