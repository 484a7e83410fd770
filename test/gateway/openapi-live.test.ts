/**
 * The generated OpenAPI document describes what is served. Every route of
 * the user-service example (generated/user.openapi.json, served by
 * examples/user-service/gateway.ts) is called over loopback, success and
 * error, and each live response is checked against the document by
 * express-openapi-validator: the test sits as a pass-through in front of the
 * live gateway, and the validator refuses (500) any response its document
 * does not describe. NDJSON stream lines, which OpenAPI 3.1 has no item
 * validation for, are checked with ajv against the document's line schema.
 * A second, generated-on-the-fly service (fixtures/ledger.proto) covers
 * response_body, a path sub-pattern, a custom verb, a stream that fails
 * mid-way, enums, bytes, maps and wrappers. Its 64-bit integers, Duration
 * and Timestamp answer as canonical proto3 JSON strings, as the document says.
 */
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Server } from 'node:http';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ProtocolGateway, ServiceError } from 'fw';
import { startUserGateway, type RunningUserGateway } from '../../examples/user-service/gateway';
import { runCli } from '../cli/support/run-cli';
import { HOST } from './support/clients';
import { startedGateways } from './support/started-gateways';

type Json = Record<string, unknown>;
type Doc = Json & { paths: Record<string, Record<string, Json>> };

const REPO_ROOT = path.resolve(__dirname, '../..');
const TMP = path.join(__dirname, 'tmp');

/** A response as the client saw it, after the validator in front of the gateway had its say. */
interface Checked {
  status: number;
  contentType: string;
  text: string;
}

/** An Express app that forwards every request to `target` and answers with its response through the OpenAPI validator. */
async function validatingProxy(doc: Doc, target: () => string): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(express.raw({ type: () => true, limit: '1mb' }));
  app.use(OpenApiValidator.middleware({ apiSpec: doc as never, validateApiSpec: true, validateRequests: false, validateResponses: true }));
  app.use(async (req, res, next) => {
    try {
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'accept']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
      const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? new Uint8Array(req.body) : undefined;
      const live = await fetch(target() + req.originalUrl, { method: req.method, headers, body, signal: AbortSignal.timeout(5000) });
      const type = live.headers.get('content-type') ?? '';
      const text = await live.text();
      res.status(live.status);
      if (type.startsWith('application/json')) res.json(JSON.parse(text));
      else res.type(type).send(text);
    } catch (error) {
      next(error);
    }
  });
  // The validator's refusals (a response or a document it does not accept) arrive here.
  app.use((error: { status?: number; message?: string; errors?: unknown }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(599).json({ validator: error.message, errors: error.errors ?? null });
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, HOST, () => resolve(s));
  });
  return {
    url: `http://${HOST}:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** ajv over the document's schemas, for NDJSON lines (OpenAPI 3.1 has no item validation). */
function lineValidator(doc: Doc): (pathKey: string, verb: string, line: unknown) => string | undefined {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const base = 'https://openapi.test/document';
  ajv.addSchema({ $id: base, components: doc['components'] } as never);
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  return (pathKey, verb, line) => {
    const op = doc.paths[pathKey]?.[verb] as { responses: Record<string, { content: Record<string, { schema: Json }> }> } | undefined;
    const schema = op?.responses['200']?.content['application/x-ndjson']?.schema;
    if (schema === undefined) return `${verb} ${pathKey}: no NDJSON response in the document`;
    const key = `${verb} ${pathKey}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      const text = JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`);
      validate = ajv.compile({ $id: `https://openapi.test/line/${compiled.size}`, ...(JSON.parse(text) as Json) });
      compiled.set(key, validate);
    }
    return validate(line) ? undefined : `${key}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(line)}`;
  };
}

function caller(base: () => string): (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<Checked> {
  return async (method, url, body, headers) => {
    const res = await fetch(base() + url, {
      method,
      headers: headers ?? (body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
  };
}

/** Fails with the validator's reason when it refused the live response. */
function accepted(checked: Checked, status: number): Json | unknown[] | string {
  if (checked.status === 599) throw new Error(`the document does not describe this response: ${checked.text}`);
  expect(checked.status).toBe(status);
  return JSON.parse(checked.text) as Json;
}

function ndjsonLines(checked: Checked): unknown[] {
  expect(checked.status).toBe(200);
  expect(checked.contentType).toMatch(/^application\/x-ndjson/);
  return checked.text.trim().split('\n').map((l) => JSON.parse(l) as unknown);
}

describe('the user-service example against generated/user.openapi.json', () => {
  const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'generated', 'user.openapi.json'), 'utf8')) as Doc;
  let running: RunningUserGateway;
  let proxy: { url: string; close(): Promise<void> };
  let gatewayUrl = '';
  const call = caller(() => proxy.url);
  const direct = caller(() => gatewayUrl);
  const line = lineValidator(doc);

  beforeAll(async () => {
    running = await startUserGateway(0, HOST);
    gatewayUrl = `http://${HOST}:${running.address.port as number}`;
    proxy = await validatingProxy(doc, () => gatewayUrl);
  });

  afterAll(async () => {
    await proxy?.close();
    await running?.close();
  });

  it('the document validates against the OpenAPI 3.1 schema, and a broken copy is refused', async () => {
    expect(doc['openapi']).toBe('3.1.0');
    expect(doc['servers']).toEqual([expect.objectContaining({ url: '/' })]);
    // A response without its required description is not OpenAPI.
    const broken = JSON.parse(JSON.stringify(doc)) as Doc;
    delete (broken.paths['/users/{id}']?.['get'] as { responses: Record<string, Json> }).responses['200']?.['description'];
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const refusing = await validatingProxy(broken, () => gatewayUrl);
    try {
      const res = await caller(() => refusing.url)('GET', '/users/x');
      expect(res.status).toBe(599);
      expect(res.text).toMatch(/apiDoc was invalid/);
      expect(JSON.stringify(quiet.mock.calls)).toMatch(/description/);
      quiet.mockRestore();
    } finally {
      await refusing.close();
    }
    expect((await call('GET', '/users/none')).status).toBe(404);
  });

  it('the validator is a real check: a response its document does not describe is refused', async () => {
    const made = accepted(await call('POST', '/users', { name: 'Val', email: 'val@example.com' }), 200) as Json;
    const wrong = JSON.parse(JSON.stringify(doc)) as Doc & { components: { schemas: Record<string, { properties: Record<string, Json> }> } };
    (wrong.components.schemas['user.User'] as { properties: Record<string, Json> }).properties['name'] = { type: 'integer' };
    const strict = await validatingProxy(wrong, () => gatewayUrl);
    try {
      const res = await caller(() => strict.url)('GET', `/users/${String(made['id'])}`);
      expect(res.status).toBe(599);
      expect(res.text).toMatch(/name/);
    } finally {
      await strict.close();
    }
  });

  it('every path in the document is served where it says (default routes under /api)', async () => {
    for (const [pathKey, item] of Object.entries(doc.paths)) {
      for (const verb of Object.keys(item)) {
        const url = pathKey.replace(/\{[^}]+\}/g, 'probe');
        const res = await direct(verb.toUpperCase(), url, verb === 'get' || verb === 'delete' ? undefined : pathKey.includes('Multiple') || pathKey.includes('chat') ? [] : {});
        expect([verb, pathKey, res.status === 404 && /No gateway route/.test(res.text)]).toEqual([verb, pathKey, false]);
      }
    }
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/UserService/'))).toEqual([]);
  });

  it('google.api.http routes: the bare message, and every error in the error body', async () => {
    const created = accepted(await call('POST', '/users', { name: 'Ada', email: 'ada@example.com', roles: ['admin'], address: { city: 'London' } }), 200) as Json;
    const id = String(created['id']);
    expect(accepted(await call('GET', `/users/${id}`), 200)).toMatchObject({ id, name: 'Ada' });
    expect(accepted(await call('PUT', `/users/${id}`, { name: 'Ada L.' }), 200)).toMatchObject({ name: 'Ada L.' });
    expect(accepted(await call('POST', '/users', { name: '', email: 'nope' }), 400)).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect(accepted(await call('POST', '/users', '{"name":"Ada"}', { 'content-type': 'text/plain' }), 415)).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(accepted(await call('POST', '/users', '{"name":', { 'content-type': 'application/json' }), 400)).toMatchObject({ error: 'INVALID_JSON' });
    expect(accepted(await call('PUT', '/users/missing', { name: 'X' }), 404)).toMatchObject({ error: 'NOT_FOUND' });
    expect(accepted(await call('GET', '/users/missing'), 404)).toMatchObject({ error: 'NOT_FOUND' });
    expect(accepted(await call('DELETE', `/users/${id}`), 200)).toEqual({ success: true });
    expect(accepted(await call('DELETE', `/users/${id}`), 404)).toMatchObject({ error: 'NOT_FOUND' });
    expect(accepted(await call('GET', '/users?limit=1000'), 400)).toMatchObject({ error: 'VALIDATION_ERROR' });
  });

  it('a google.api.http server stream: {"result"} lines, each as the document says', async () => {
    for (const n of ['s1', 's2']) accepted(await call('POST', '/users', { name: n, email: `${n}@example.com` }), 200);
    const lines = ndjsonLines(await direct('GET', '/users?limit=10'));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(line('/users', 'get', l)).toBeUndefined();
    expect(lines.map((l) => (l as { result: Json }).result['name'])).toEqual(expect.arrayContaining(['s1', 's2']));
  });

  it('default routes: {data}, array bodies for client streams, {"data"} lines for server streams', async () => {
    const made = accepted(await call('POST', '/api/UserService/createUser', { name: 'Dee', email: 'dee@example.com' }), 200) as { data: Json };
    const id = String(made.data['id']);
    expect(accepted(await call('POST', '/api/UserService/getUser', { id }), 200)).toMatchObject({ data: { id } });
    expect(accepted(await call('POST', '/api/UserService/updateUser', { id, phone: '555' }), 200)).toMatchObject({ data: { phone: '555' } });
    expect(accepted(await call('POST', '/api/UserService/getUser', { id: 'missing' }), 404)).toMatchObject({ error: 'NOT_FOUND' });
    expect(accepted(await call('POST', '/api/UserService/getUser', {}), 400)).toMatchObject({ error: 'VALIDATION_ERROR' });
    const many = accepted(await call('POST', '/api/UserService/createMultipleUsers', [{ name: 'M1', email: 'm1@example.com' }, { name: '', email: 'bad' }]), 200) as { data: Json };
    expect(many.data['count']).toBe(1);
    expect(accepted(await call('POST', '/api/UserService/deleteUser', { id }), 200)).toEqual({ data: { success: true } });
    const listed = ndjsonLines(await direct('POST', '/api/UserService/listUsers', { limit: 5 }));
    for (const l of listed) expect(line('/api/UserService/listUsers', 'post', l)).toBeUndefined();
    const found = ndjsonLines(await direct('POST', '/api/UserService/searchUsers', { query: 'M1' }));
    for (const l of found) expect(line('/api/UserService/searchUsers', 'post', l)).toBeUndefined();
    const chat = ndjsonLines(await direct('POST', '/api/UserService/chatWithUsers', [{ userId: 'u1', message: 'hi' }]));
    for (const l of chat) expect(line('/api/UserService/chatWithUsers', 'post', l)).toBeUndefined();
  });
});

describe('a generated ledger service against its generated OpenAPI', () => {
  const start = startedGateways();
  let dir: string;
  let doc: Doc;
  let proxy: { url: string; close(): Promise<void> };
  let gatewayUrl = '';
  const call = caller(() => proxy.url);
  const direct = caller(() => gatewayUrl);

  beforeAll(async () => {
    fs.mkdirSync(TMP, { recursive: true });
    dir = fs.mkdtempSync(path.join(TMP, 'openapi-live-'));
    const src = path.join(dir, 'src');
    fs.mkdirSync(src);
    fs.copyFileSync(path.join(__dirname, 'fixtures', 'ledger.proto'), path.join(src, 'ledger.proto'));
    const out = path.join(dir, 'out');
    const result = runCli([src, '-o', out, '--stubs', path.join(dir, 'stubs'), '-q']);
    if (result.status !== 0) throw new Error(result.stderr);
    doc = JSON.parse(fs.readFileSync(path.join(out, 'ledger.openapi.json'), 'utf8')) as Doc;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ledger = require(path.join(out, 'ledger.fw.ts')) as Json;
    const entry = (name: string): Json => ({ name, kind: 1, memo: new Uint8Array([1, 2, 255]), tags: { a: 1 }, amounts: [1.5, Number.NaN], note: 'n', settled: true });
    const gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addService(ledger['LedgerDescriptor'] as never, {
      getEntry: async (r: { name: string }) => {
        if (r.name === 'entries/missing') throw new ServiceError('NOT_FOUND', 'no such entry', 404);
        return { entry: entry(r.name), etag: 'e1' };
      },
      watch: async function* (r: { failAfter: number }) {
        for (let i = 0; i < 3; i++) {
          if (r.failAfter > 0 && i === r.failAfter) throw new Error('ledger went away');
          yield entry(`entries/${i}`);
        }
      },
      getTotals: async () => ({ cents: 9007199254740993n, count: 18446744073709551615n, took: { seconds: 1n, nanos: 500_000_000 }, at: { seconds: BigInt(Date.parse('2024-01-02T03:04:05Z') / 1000), nanos: 123_000_000 } }),
    });
    gatewayUrl = `http://${HOST}:${(await start(gateway)).port}`;
    proxy = await validatingProxy(doc, () => gatewayUrl);
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes canonical proto3 JSON schemas: 64-bit integers, Duration and bytes as strings, enums by name, wrappers nullable', () => {
    const schemas = (doc['components'] as { schemas: Record<string, { properties: Record<string, Json> }> }).schemas;
    const totals = schemas['ledger.v1.Totals']?.properties ?? {};
    expect(totals['cents']).toMatchObject({ type: 'string' });
    expect(totals['count']).toMatchObject({ type: 'string' });
    expect(totals['took']).toMatchObject({ type: 'string' });
    expect(totals['at']).toEqual({ type: 'string', format: 'date-time' });
    const entry = schemas['ledger.v1.Entry']?.properties ?? {};
    expect(entry['kind']).toEqual({ anyOf: [{ type: 'string', enum: ['KIND_UNSPECIFIED', 'KIND_CREDIT', 'KIND_DEBIT'] }, { type: 'integer' }] });
    expect(entry['memo']).toMatchObject({ type: 'string', contentEncoding: 'base64' });
    expect(entry['note']).toEqual({ type: ['string', 'null'] });
    expect(entry['amounts']).toMatchObject({ type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }] } });
    expect(schemas['fw.Error']).toMatchObject({ required: ['error', 'message'] });
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/entries/{name}', '/v1/ledgers/{ledger}:watch', '/api/Ledger/getEntry']));
  });

  it('response_body with a sub-pattern variable: the bare field; an error in the error body', async () => {
    expect(accepted(await call('GET', '/v1/entries/e7'), 200)).toMatchObject({ name: 'entries/e7', kind: 'KIND_CREDIT', memo: 'AQL/' });
    expect(accepted(await call('GET', '/v1/entries/missing'), 404)).toMatchObject({ error: 'NOT_FOUND', message: 'no such entry' });
    expect(accepted(await call('POST', '/api/Ledger/getEntry', { name: 'entries/e8' }), 200)).toMatchObject({ data: { entry: { name: 'entries/e8' }, etag: 'e1' } });
  });

  it('a stream on a custom-verb route that fails mid-way: {"result"} lines, then grpc-gateway\'s {"error"} line with the error body', async () => {
    const validate = lineValidator(doc);
    const whole = ndjsonLines(await direct('GET', '/v1/ledgers/main:watch'));
    expect(whole).toHaveLength(3);
    const broken = ndjsonLines(await direct('GET', '/v1/ledgers/main:watch?fail_after=2'));
    expect(broken).toHaveLength(3);
    expect(broken[2]).toEqual({ error: expect.objectContaining({ error: 'INTERNAL_ERROR', message: expect.any(String) }) });
    for (const l of [...whole, ...broken]) expect(validate('/v1/ledgers/{ledger}:watch', 'get', l)).toBeUndefined();
    const enveloped = ndjsonLines(await direct('POST', '/api/Ledger/watch', { ledger: 'main', failAfter: 1 }));
    expect(enveloped[1]).toMatchObject({ error: 'INTERNAL_ERROR' });
    for (const l of enveloped) expect(validate('/api/Ledger/watch', 'post', l)).toBeUndefined();
  });

  it('64-bit integers and Duration answer as the document says (canonical strings)', async () => {
    const totals = accepted(await call('GET', '/v1/ledgers/main/totals'), 200);
    expect(totals).toEqual({ cents: '9007199254740993', count: '18446744073709551615', took: '1.500s', at: '2024-01-02T03:04:05.123Z' });
  });
});
