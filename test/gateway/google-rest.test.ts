/**
 * Serving Google's own API protos over REST: fw-gen output for
 * google.longrunning.Operations and google.logging.v2.LoggingServiceV2 (from
 * google-proto-files) hosted on the gateway, called with fetch on their
 * `google.api.http` routes: a literal sub-pattern (`{name=operations}`), `**`,
 * a custom verb (`:cancel`), additional bindings, and multi-segment
 * variables; plus shelf.proto for response_body, `{book.name}`, body: "book"
 * and nested/repeated query parameters (no Google API proto uses those).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ProtocolGateway } from 'fw';
import { copyWithImports } from '../cli/support/google-protos';
import { runCli } from '../cli/support/run-cli';
import { HOST } from './support/clients';
import { startedGateways } from './support/started-gateways';

const TMP = path.join(__dirname, 'tmp');

type Loaded = Record<string, unknown>;
type Rec = Record<string, unknown>;

describe('Google API protos served over REST', () => {
  const start = startedGateways();
  let dir: string;
  let base: string;
  const calls: { rpc: string; request: Rec }[] = [];

  beforeAll(async () => {
    fs.mkdirSync(TMP, { recursive: true });
    dir = fs.mkdtempSync(path.join(TMP, 'google-rest-'));
    const src = path.join(dir, 'src');
    copyWithImports(['google/longrunning/operations.proto', 'google/logging/v2/logging.proto'], src);
    fs.copyFileSync(path.join(__dirname, 'fixtures', 'shelf.proto'), path.join(src, 'shelf.proto'));
    const out = path.join(dir, 'out');
    const result = runCli([src, '-o', out, '--stubs', path.join(dir, 'stubs'), '-q']);
    if (result.status !== 0) throw new Error(result.stderr);
    /* eslint-disable @typescript-eslint/no-require-imports */
    const operations = require(path.join(out, 'google/longrunning/operations.fw.ts')) as Loaded;
    const logging = require(path.join(out, 'google/logging/v2/logging.fw.ts')) as Loaded;
    const shelf = require(path.join(out, 'shelf.fw.ts')) as Loaded;
    /* eslint-enable @typescript-eslint/no-require-imports */
    const record = (rpc: string, request: Rec): void => void calls.push({ rpc, request });
    const gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addService(operations['OperationsDescriptor'] as never, {
      listOperations: async (r: Rec) => (record('ListOperations', r), { operations: [{ name: 'operations/one', done: true }], nextPageToken: '', unreachable: [] }),
      getOperation: async (r: Rec) => (record('GetOperation', r), { name: r['name'], done: false }),
      deleteOperation: async (r: Rec) => (record('DeleteOperation', r), {}),
      cancelOperation: async (r: Rec) => (record('CancelOperation', r), {}),
      waitOperation: async (r: Rec) => (record('WaitOperation', r), { name: r['name'], done: true }),
    });
    gateway.addService(logging['LoggingServiceV2Descriptor'] as never, {
      deleteLog: async (r: Rec) => (record('DeleteLog', r), {}),
      listLogs: async (r: Rec) => (record('ListLogs', r), { logNames: ['a', 'b'], nextPageToken: '' }),
    });
    gateway.addService(shelf['ShelfDescriptor'] as never, {
      getBook: async (r: Rec) => (record('GetBook', r), { name: r['name'], title: 'Dune', tags: [], author: undefined }),
      updateBook: async (r: Rec) => (record('UpdateBook', r), r['book']),
      searchBooks: async (r: Rec) => (record('SearchBooks', r), { books: [{ name: 'shelves/1/books/2', title: 'Emma', tags: ['x'], author: undefined }], nextPageToken: 'n' }),
    });
    const { port } = await start(gateway);
    base = `http://${HOST}:${port}`;
  }, 120_000);

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => calls.splice(0));

  async function call(method: string, url: string, body?: unknown): Promise<{ status: number; json: Rec }> {
    const res = await fetch(base + url, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as Rec };
  }

  it('GET /v1/{name=operations} and GET /v1/{name=operations/**} are different routes', async () => {
    const list = await call('GET', '/v1/operations?filter=done%3Dtrue&page_size=5');
    expect(list.status).toBe(200);
    expect(calls).toEqual([{ rpc: 'ListOperations', request: expect.objectContaining({ name: 'operations', filter: 'done=true', pageSize: 5 }) }]);
    const get = await call('GET', '/v1/operations/a/b/c');
    expect(get.json).toEqual({ name: 'operations/a/b/c' });
    expect(calls[1]).toEqual({ rpc: 'GetOperation', request: { name: 'operations/a/b/c' } });
  });

  it('a custom verb after ** (POST /v1/{name=operations/**}:cancel), and DELETE on the same template', async () => {
    expect((await call('POST', '/v1/operations/x/y:cancel', {})).status).toBe(200);
    expect((await call('DELETE', '/v1/operations/x/y')).status).toBe(200);
    expect(calls.map((c) => [c.rpc, c.request['name']])).toEqual([
      ['CancelOperation', 'operations/x/y'],
      ['DeleteOperation', 'operations/x/y'],
    ]);
    // `**` also takes `y:explode`, so only GET and DELETE bind that path.
    const explode = await fetch(`${base}/v1/operations/x/y:explode`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(explode.status).toBe(405);
    expect(explode.headers.get('allow')).toBe('DELETE, GET');
  });

  it('a verb a bound path does not take answers 405 with Allow; an unbound path 404', async () => {
    const res = await fetch(`${base}/v1/operations/x`, { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('DELETE, GET');
    expect(await res.json()).toMatchObject({ error: 'METHOD_NOT_ALLOWED', details: { allow: ['DELETE', 'GET'] } });
    expect((await call('GET', '/v2/nothing/here')).status).toBe(404);
    expect(calls).toEqual([]);
  });

  it('additional bindings each reach the method, with the variable holding its whole sub-pattern', async () => {
    for (const logName of ['projects/p1/logs/syslog', 'organizations/o1/logs/audit', 'billingAccounts/b1/logs/x']) {
      expect((await call('DELETE', `/v2/${logName}`)).status).toBe(200);
    }
    expect(calls.map((c) => c.request['logName'])).toEqual(['projects/p1/logs/syslog', 'organizations/o1/logs/audit', 'billingAccounts/b1/logs/x']);
    const listed = await call('GET', '/v2/projects/p1/locations/global/buckets/b/views/v/logs?resource_names=projects/p1&resource_names=projects/p2');
    expect(listed.json).toEqual({ logNames: ['a', 'b'] });
    expect(calls[3]?.request).toMatchObject({ parent: 'projects/p1/locations/global/buckets/b/views/v', resourceNames: ['projects/p1', 'projects/p2'] });
    // One segment short of every DELETE binding: that path is ListLogs' (GET) only.
    expect((await call('DELETE', '/v2/projects/p1/logs')).status).toBe(405);
    expect((await call('DELETE', '/v2/projects/p1/logs/a/b')).status).toBe(404);
  });

  it('a multi-segment capture decodes its segments but keeps an encoded slash', async () => {
    await call('GET', '/v1/operations/a%2Fb/c');
    expect(calls[0]?.request['name']).toBe('operations/a%2Fb/c');
    await call('GET', '/v1/shelves/s%201/books/b%2F2');
    expect(calls[1]?.request['name']).toBe('shelves/s 1/books/b%2F2');
  });

  it('response_body: the reply is that field of the response, bare as grpc-gateway gives it', async () => {
    const got = await call('GET', '/v1/shelves/1/books/2');
    expect(got.json).toBe('Dune');
    const found = await call('GET', '/v1/shelves/1/books:search?tags=a&tags=b&author.display_name=Ann&author.living=true&page_size=3');
    expect(found.json).toEqual([{ name: 'shelves/1/books/2', title: 'Emma', tags: ['x'] }]);
    expect(calls[1]?.request).toEqual({ parent: 'shelves/1', tags: ['a', 'b'], author: { displayName: 'Ann', living: true }, pageSize: 3 });
  });

  it('body: "book" with the nested path variable {book.name}, other fields from the query', async () => {
    const updated = await call('PATCH', '/v1/shelves/1/books/9?validate_only=true', { title: 'New', tags: ['t'] });
    expect(updated.json).toEqual({ name: 'shelves/1/books/9', title: 'New', tags: ['t'] });
    expect(calls[0]?.request).toEqual({ book: { name: 'shelves/1/books/9', title: 'New', tags: ['t'], author: undefined }, validateOnly: true });
  });

  it('bad query parameters are a 400, not a guess', async () => {
    expect((await call('GET', '/v1/shelves/1/books:search?author.living=maybe')).status).toBe(400);
    expect((await call('GET', '/v1/shelves/1/books:search?page_size=1&page_size=2')).status).toBe(400);
  });
});
