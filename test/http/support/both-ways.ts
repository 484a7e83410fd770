/**
 * Runs one test suite twice: through `createFetchHandler()` (in-process) and
 * over a real loopback socket (`listen(0, '127.0.0.1')` + fetch). Every HTTP
 * feature test uses it, so both paths are held to the same cases.
 */
import { request as httpRequest } from 'node:http';
import type { FwApplication } from 'fw';

export type Transport = 'in-process' | 'socket';

export interface TestClient {
  readonly transport: Transport;
  /** `path` is origin-relative (`/users?x=1`). */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Base URL requests are made against. */
  readonly base: string;
  /**
   * A request sent exactly as given. (Over a socket `fetch` adds
   * `Cache-Control: no-cache` to conditional requests, as the Fetch standard
   * says, so conditional GET is tested with node:http there.)
   */
  raw(path: string, headers: Record<string, string>, method?: string): Promise<RawResponse>;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function nodeRequest(base: string, path: string, headers: Record<string, string>, method: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function fromResponse(response: Response): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => { headers[name] = value; });
  return { status: response.status, headers, body: await response.text() };
}

export const TRANSPORTS: Transport[] = ['in-process', 'socket'];

/** Builds a client for `app` over `transport`; call `close` when done. */
export async function connect(app: FwApplication, transport: Transport): Promise<TestClient & { close(): Promise<void> }> {
  if (transport === 'socket') {
    await app.listen(0, '127.0.0.1');
    const base = app.url;
    return {
      transport,
      base,
      request: (path, init) => fetch(base + path, init),
      raw: (path, headers, method = 'GET') => nodeRequest(base, path, headers, method),
      close: () => app.close(),
    };
  }
  const handler = app.createFetchHandler();
  const base = 'http://localhost';
  return {
    transport,
    base,
    request: (path, init) => handler(new Request(base + path, init)),
    raw: async (path, headers, method = 'GET') => fromResponse(await handler(new Request(base + path, { method, headers }))),
    close: () => app.close(),
  };
}

/**
 * `describe`s `title` once per transport; `build` makes a fresh app for each.
 *
 * @example
 * bothWays('hello', () => server.http().get('/', (req, res) => res.json({})), (client) => {
 *   test('answers', async () => expect((await client().request('/')).status).toBe(200));
 * });
 */
export function bothWays(title: string, build: () => FwApplication, body: (client: () => TestClient, app: () => FwApplication) => void): void {
  describe.each(TRANSPORTS)(`${title} [%s]`, (transport) => {
    let app: FwApplication;
    let client: TestClient & { close(): Promise<void> };
    beforeAll(async () => {
      app = build();
      client = await connect(app, transport);
    });
    afterAll(async () => {
      await client.close();
    });
    body(() => client, () => app);
  });
}

/** Reads a JSON body. */
export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
