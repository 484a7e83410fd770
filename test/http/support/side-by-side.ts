/**
 * Runs one third-party Express middleware on fw and on Express 5, side by
 * side: the same mount code builds both applications, both listen on a
 * loopback port, the same requests go to each over real sockets, and what
 * came back (status, chosen headers, body, plus anything the case notes, such
 * as log lines) is recorded for comparison.
 */
import { request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { server } from 'fw';

/**
 * The application surface the mount code uses: fw's and Express's
 * applications both have it. Loosely typed because each middleware is typed
 * against Express's request type; at run time fw supplies that surface.
 */
export interface AppLike {
  use(...args: unknown[]): unknown;
  get(...args: unknown[]): unknown;
  post(...args: unknown[]): unknown;
  delete(...args: unknown[]): unknown;
  set(...args: unknown[]): unknown;
}

/** What one side (fw or Express) gives its mount code. */
export interface Side {
  readonly name: 'fw' | 'express';
  /** Lines a logging middleware wrote, in order. */
  readonly logs: string[];
}

/** One response (or noted value) as compared. */
export interface Recorded {
  label: string;
  status?: number;
  headers?: Record<string, string | null>;
  body?: unknown;
}

/** Sends requests to one side and records what it answers. */
export interface Client {
  readonly side: Side;
  /** `path` is origin-relative; the response is recorded under `label` and returned. */
  send(label: string, path: string, init?: RequestInit): Promise<Response & { text(): Promise<string> }>;
  /** A request sent exactly as given, with node:http (fetch adds `Cache-Control: no-cache` to conditional requests). */
  sendRaw(label: string, path: string, headers: Record<string, string>): Promise<void>;
  /** Records a value that is not a response (a log line, say). */
  note(label: string, value: unknown): void;
  /** Waits (bounded, 2 s) until `ready()` holds, e.g. a log line was written after the response. */
  until(ready: () => boolean): Promise<void>;
}

export interface MiddlewareCase {
  /** The npm package under test. */
  pkg: string;
  /** What the requests exercise, for the table. */
  exercised: string;
  /** Mounts the middleware as its README shows; the same code runs on both sides. */
  mount(app: AppLike, side: Side): void;
  /** Sends the requests (the same on both sides). */
  run(client: Client): Promise<void>;
  /** Response headers compared (lower-case). */
  headers: string[];
  /** Masks what legitimately differs between two runs (random ids, timings). */
  mask?(record: Recorded): Recorded;
  /** What the middleware must visibly have done (run on fw's records; Express's are equal to them). */
  check(records: Recorded[]): void;
}

const WAIT_MS = 2000;

async function startFw(mount: (app: AppLike) => void): Promise<{ base: string; close(): Promise<void> }> {
  const app = server.http();
  mount(app as unknown as AppLike);
  await app.listen(0, '127.0.0.1');
  return { base: app.url, close: () => app.close({ graceMs: 500 }) };
}

async function startExpress(mount: (app: AppLike) => void): Promise<{ base: string; close(): Promise<void> }> {
  const app = express();
  mount(app as unknown as AppLike);
  const listening: Server = await new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (error?: Error) => (error === undefined ? resolve(s) : reject(error)));
  });
  const port = (listening.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      listening.closeAllConnections();
      listening.close(() => resolve());
    }),
  };
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json') && text !== '') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** Runs `testCase` on one side and returns its records, masked. */
export async function runOn(name: Side['name'], testCase: MiddlewareCase): Promise<Recorded[]> {
  const side: Side = { name, logs: [] };
  const mount = (app: AppLike): void => testCase.mount(app, side);
  const running = name === 'fw' ? await startFw(mount) : await startExpress(mount);
  const records: Recorded[] = [];
  const client: Client = {
    side,
    async send(label, path, init) {
      const response = await fetch(running.base + path, { redirect: 'manual', ...init });
      const headers: Record<string, string | null> = {};
      for (const header of testCase.headers) {
        headers[header] = header === 'set-cookie' ? response.headers.getSetCookie().join('\n') || null : response.headers.get(header);
      }
      const body = await bodyOf(response.clone());
      records.push({ label, status: response.status, headers, body });
      return response;
    },
    async sendRaw(label, path, headers) {
      const response = await new Promise<IncomingMessage & { text: string }>((resolve, reject) => {
        const req = request(running.base + path, { headers, agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => { text += chunk; });
          res.on('end', () => resolve(Object.assign(res, { text })));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      const picked: Record<string, string | null> = {};
      for (const header of testCase.headers) {
        const value = response.headers[header];
        picked[header] = value === undefined ? null : Array.isArray(value) ? value.join('\n') : value;
      }
      records.push({ label, status: response.statusCode, headers: picked, body: response.text });
    },
    note(label, value) {
      records.push({ label, body: value });
    },
    async until(ready) {
      for (let waited = 0; !ready() && waited < WAIT_MS; waited += 10) await new Promise((r) => setTimeout(r, 10));
    },
  };
  try {
    await testCase.run(client);
  } finally {
    await running.close();
  }
  return testCase.mask === undefined ? records : records.map((r) => testCase.mask!(r));
}

/** `headers` without the names listed (for logged header objects). */
export function without(headers: Record<string, unknown>, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (!names.includes(name)) out[name] = value;
  return out;
}
