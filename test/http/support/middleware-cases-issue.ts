/**
 * The four middleware that behaved differently on fw before (issue 19):
 * http-proxy-middleware, swagger-ui-express, express-openapi-validator,
 * pino-http. Each is mounted as its README shows.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import swaggerUi from 'swagger-ui-express';
import * as OpenApiValidator from 'express-openapi-validator';
import pinoHttp from 'pino-http';
import { without, type MiddlewareCase, type Recorded } from './side-by-side';

type Req = express.Request;
type Res = express.Response;
type Next = express.NextFunction;

/** A plain node:http server the proxy forwards to: it answers with what it received. */
export class Upstream {
  #server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-upstream', 'yes');
        res.end(JSON.stringify({ method: req.method, url: req.url, host: req.headers.host === undefined ? null : 'set', body: Buffer.concat(chunks).toString() }));
      });
    });
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    this.#server = s;
    this.url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    const s = this.#server;
    if (s === null) return Promise.resolve();
    s.closeAllConnections();
    return new Promise((resolve) => s.close(() => resolve()));
  }
}

const API_SPEC = {
  openapi: '3.0.3',
  info: { title: 'pets', version: '1.0.0' },
  servers: [{ url: '/v1' }],
  paths: {
    '/pets/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          200: {
            description: 'a pet',
            content: { 'application/json': { schema: { type: 'object', required: ['id', 'idType'], properties: { id: { type: 'integer' }, idType: { type: 'string' } } } } },
          },
        },
      },
    },
    '/pets': {
      post: {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1 } } } } },
        },
        responses: { 201: { description: 'created', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
};

const json = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

export function issueCases(upstream: Upstream): MiddlewareCase[] {
  return [
    {
      pkg: 'http-proxy-middleware',
      exercised: "app.use('/api', proxy) with pathRewrite {'^/v2': '/two'}; pathFilter; POST body forwarded",
      headers: ['content-type', 'x-upstream'],
      mount(app) {
        app.use('/api', createProxyMiddleware({ target: `${upstream.url}/backend`, changeOrigin: true, pathRewrite: { '^/v2': '/two' } }));
        app.use(createProxyMiddleware({ target: upstream.url, pathFilter: '/only-this' }));
        app.use((req: Req, res: Res) => res.status(404).json({ notProxied: req.originalUrl }));
      },
      async run(client) {
        await client.send('rewritten', '/api/v2/things?id=3');
        await client.send('not rewritten', '/api/v1/things');
        await client.send('POST body', '/api/v2/items', { method: 'POST', body: 'raw body', headers: { 'content-type': 'text/plain' } });
        await client.send('pathFilter hit', '/only-this/x?q=1');
        await client.send('pathFilter miss', '/elsewhere');
      },
      check(records) {
        expect(records[0]!.body).toMatchObject({ method: 'GET', url: '/backend/two/things?id=3' });
        expect(records[1]!.body).toMatchObject({ url: '/backend/v1/things' });
        expect(records[2]!.body).toMatchObject({ method: 'POST', url: '/backend/two/items', body: 'raw body' });
        expect(records[3]!.body).toMatchObject({ url: '/only-this/x?q=1' });
        expect(records[4]).toMatchObject({ status: 404, body: { notProxied: '/elsewhere' } });
      },
    },
    {
      pkg: 'swagger-ui-express',
      exercised: "app.use('/api-docs', serve, setup(doc)): page, swagger-ui-init.js, static asset, package.json 404, redirect",
      headers: ['content-type', 'content-length', 'location', 'cache-control'],
      mount(app) {
        app.use('/api-docs', swaggerUi.serve, swaggerUi.setup(API_SPEC));
      },
      async run(client) {
        await client.send('page', '/api-docs/');
        await client.send('init script', '/api-docs/swagger-ui-init.js');
        await client.send('static asset', '/api-docs/swagger-ui.css');
        await client.send('package.json hidden', '/api-docs/package.json');
        await client.send('no trailing slash', '/api-docs');
      },
      mask: (r) => (r.label === 'static asset' ? { ...r, body: (r.body as string).length } : r),
      check(records) {
        expect(records[0]).toMatchObject({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } });
        expect(records[1]).toMatchObject({ status: 200, headers: { 'content-type': 'application/javascript; charset=utf-8' } });
        expect(records[1]!.body).toContain('"title": "pets"');
        expect(records[2]).toMatchObject({ status: 200, headers: { 'content-type': 'text/css; charset=utf-8' } });
        expect(records[3]).toMatchObject({ status: 404, body: 'Not Found', headers: { 'content-type': 'text/plain; charset=utf-8' } });
        expect(records[4]).toMatchObject({ status: 301, headers: { location: '/api-docs/' } });
      },
    },
    {
      pkg: 'express-openapi-validator',
      exercised: 'path parameter coerced through app.param; invalid path/body → 400; unknown path → 404; response validation',
      headers: ['content-type'],
      mount(app) {
        app.use(express.json());
        app.use(OpenApiValidator.middleware({ apiSpec: API_SPEC as never, validateRequests: true, validateResponses: true }));
        app.get('/v1/pets/:id', (req: Req, res: Res) => res.json({ id: req.params.id, idType: typeof req.params.id }));
        app.post('/v1/pets', (req: Req, res: Res) => res.status(201).json({ created: req.body as unknown }));
        app.use((err: { status?: number; message: string; errors?: unknown }, req: Req, res: Res, _next: Next) => {
          res.status(err.status || 500).json({ message: err.message, errors: err.errors });
        });
      },
      async run(client) {
        await client.send('integer id', '/v1/pets/12');
        await client.send('bad id', '/v1/pets/abc');
        await client.send('valid body', '/v1/pets', json({ name: 'rex' }));
        await client.send('invalid body', '/v1/pets', json({ name: '', extra: 1 }));
        await client.send('unknown path', '/v1/nothing');
      },
      check(records) {
        expect(records[0]).toMatchObject({ status: 200, body: { id: 12, idType: 'number' } });
        expect(records[1]!.status).toBe(400);
        expect(records[2]).toMatchObject({ status: 201, body: { created: { name: 'rex' } } });
        expect(records[3]!.status).toBe(400);
        expect(records[4]!.status).toBe(404);
      },
    },
    {
      pkg: 'pino-http',
      exercised: 'app.use(pinoHttp()): req.log in a handler; the completion line (req url, status, response headers)',
      headers: ['content-type', 'content-length'],
      mount(app, side) {
        app.use(pinoHttp({}, { write: (line: string) => side.logs.push(line) } as never));
        app.get('/', (req: Req, res: Res) => {
          req.log.info('something');
          res.send('hello world');
        });
        app.get('/json', (req: Req, res: Res) => res.json({ a: 1 }));
      },
      async run(client) {
        const { logs } = client.side;
        for (const path of ['/?x=1', '/json']) {
          const before = logs.length;
          await client.send(path, path);
          await client.until(() => logs.some((line, i) => i >= before && line.includes('request completed')));
        }
        for (const line of logs) {
          const entry = JSON.parse(line) as { msg: string; req: { id: number; method: string; url: string }; res?: { statusCode: number; headers: Record<string, unknown> } };
          // Express alone adds X-Powered-By and an ETag (fw sends neither: docs/http.md).
          client.note('log', { msg: entry.msg, req: entry.req.id, method: entry.req.method, url: entry.req.url, status: entry.res?.statusCode, headers: entry.res === undefined ? undefined : without(entry.res.headers, ['x-powered-by', 'etag']) });
        }
      },
      check(records) {
        const logged = records.filter((r) => r.label === 'log').map((r) => r.body);
        expect(logged).toEqual([
          { msg: 'something', req: 1, method: 'GET', url: '/?x=1', status: undefined, headers: undefined },
          { msg: 'request completed', req: 1, method: 'GET', url: '/?x=1', status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': '11' } },
          { msg: 'request completed', req: 2, method: 'GET', url: '/json', status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '7' } },
        ]);
      },
    },
  ] satisfies MiddlewareCase[];
}

/** Session cookies and similar random values, masked for comparison. */
export function maskCookieValues(record: Recorded): Recorded {
  const cookie = record.headers?.['set-cookie'];
  if (cookie === undefined || cookie === null) return record;
  return { ...record, headers: { ...record.headers, 'set-cookie': cookie.replace(/=s%3A[^;]+/g, '=s%3A<signed>').replace(/Expires=[^;]+/g, 'Expires=<date>') } };
}
