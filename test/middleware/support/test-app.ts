/**
 * Test harness for the middleware suites: an fw app (`server.http()`) on a
 * loopback port, and a raw HTTP client that sends paths byte for byte
 * (fetch would normalise `..`, `%2e%2e` and backslashes away).
 *
 * MW_TEST_HOST=express runs the same suites on Express 5 instead, to check
 * that the wrappers do not depend on fw's request/response classes.
 */
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { server } from 'fw';

/** What the suites need of an app: the Express-compatible registration surface. */
export interface TestApp {
  use(...args: unknown[]): unknown;
  get(path: string, ...handlers: unknown[]): unknown;
  post(path: string, ...handlers: unknown[]): unknown;
}

export interface Started {
  app: TestApp;
  port: number;
  close(): Promise<void>;
}

const useExpress = process.env.MW_TEST_HOST === 'express';

/** A fresh app; `configure` registers middleware and routes before it listens. */
export async function startApp(configure: (app: TestApp) => void, options?: Record<string, unknown>): Promise<Started> {
  if (useExpress) return startExpress(configure, options);
  const app = server.http();
  if (options !== undefined) app.withOptions(options);
  configure(app as unknown as TestApp);
  await app.listen(0, '127.0.0.1');
  return { app: app as unknown as TestApp, port: app.port, close: () => app.close({ graceMs: 1000 }) };
}

async function startExpress(configure: (app: TestApp) => void, options?: Record<string, unknown>): Promise<Started> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const express = require('express') as () => TestApp & { listen(port: number, host: string, cb: () => void): Server };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { globalMiddleware } = require('fw/middleware') as typeof import('fw/middleware');
  const app = express();
  if (options !== undefined) for (const handler of globalMiddleware(options)) app.use(handler);
  configure(app);
  app.use((req: { method: string; path: string }, res: { status(n: number): { json(v: unknown): void } }) => {
    res.status(404).json({ error: 'Not Found', path: req.path, method: req.method });
  });
  app.use((error: { statusCode?: number; message?: string }, _req: unknown, res: { headersSent: boolean; status(n: number): { json(v: unknown): void } }, next: (e: unknown) => void) => {
    if (res.headersSent) return next(error);
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    res.status(status).json({ error: status < 500 ? error.message : 'Internal Server Error' });
  });
  const listening = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (listening.address() as AddressInfo).port;
  return {
    app,
    port,
    close: () => new Promise<void>((resolve) => {
      listening.closeAllConnections();
      listening.close(() => resolve());
    }),
  };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string | string[]>;
  /** A single body, sent with Content-Length. */
  body?: string | Buffer;
  /** Body chunks sent with Transfer-Encoding: chunked (no Content-Length). */
  chunks?: ReadonlyArray<string | Buffer>;
}

/** One request over a fresh loopback connection; the path goes on the wire unchanged. */
export function send(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[] | number> = { connection: 'close', ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    const outgoing = httpRequest({ host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path, headers, timeout: 10_000 }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(parts);
        const text = body.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json });
      });
      res.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`request to ${req.path} timed out`)));
    outgoing.on('error', reject);
    if (req.chunks !== undefined) {
      for (const chunk of req.chunks) outgoing.write(chunk);
      outgoing.end();
    } else {
      outgoing.end(req.body);
    }
  });
}

/** A JSON POST. */
export function postJson(port: number, path: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return send(port, { method: 'POST', path, body, headers: { 'content-type': 'application/json', ...headers } });
}
