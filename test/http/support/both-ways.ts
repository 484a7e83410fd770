/**
 * Runs one test suite twice: through `createFetchHandler()` (in-process) and
 * over a real loopback socket (`listen(0, '127.0.0.1')` + fetch). Every HTTP
 * feature test uses it, so both paths are held to the same cases.
 */
import type { FwApplication } from 'fw';

export type Transport = 'in-process' | 'socket';

export interface TestClient {
  readonly transport: Transport;
  /** `path` is origin-relative (`/users?x=1`). */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Base URL requests are made against. */
  readonly base: string;
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
      close: () => app.close(),
    };
  }
  const handler = app.createFetchHandler();
  const base = 'http://localhost';
  return {
    transport,
    base,
    request: (path, init) => handler(new Request(base + path, init)),
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
