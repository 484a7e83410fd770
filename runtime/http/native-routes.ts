/**
 * `app.withRoutes(routes)` (spec 4.3 "Native routes"): fetch-style handlers —
 * a standard `Request` (with `params`) in, a `Response` out — registered as
 * ordinary routes, so they are served alongside, and in order with, the rest.
 */
import { METHODS } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FwRequest } from './request';
import type { FwResponse } from './response';
import type { NativeRequest, NativeRouteHandler, NativeRoutes, RouteHandler } from './types';

/** A route to register: method (`ALL` for every method) and its handler. */
export interface NativeRouteEntry {
  method: string;
  handler: RouteHandler;
}

const KNOWN_METHODS = new Set(METHODS);

function toWebRequest(req: FwRequest): NativeRequest {
  const host = req.headers.host ?? 'localhost';
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    if (req.body !== undefined) {
      // A body-parsing middleware already consumed the stream: hand over what it parsed.
      const parsed = req.body;
      init.body = typeof parsed === 'string' ? parsed : parsed instanceof Uint8Array ? new Uint8Array(parsed) : JSON.stringify(parsed);
    } else if (!req.readableEnded) {
      init.body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
  }
  const request = new Request(`${req.protocol}://${host}${req.originalUrl}`, init) as NativeRequest;
  request.params = { ...req.params } as Record<string, string>;
  return request;
}

async function writeWebResponse(res: FwResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  if (response.statusText !== '') res.statusMessage = response.statusText;
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('Set-Cookie', cookies);
  if (response.body === null) {
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), res);
}

function adapt(handler: NativeRouteHandler, path: string): RouteHandler {
  return async (req, res) => {
    const response = await handler(toWebRequest(req));
    if (!(response instanceof Response)) throw new TypeError(`Native route ${path} must return a Response`);
    await writeWebResponse(res, response);
  };
}

function staticResponse(value: unknown): () => Response {
  if (value instanceof Response) return () => value.clone();
  if (typeof value === 'string') return () => new Response(value, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  if (value instanceof Uint8Array) {
    const copy = new Uint8Array(value);
    return () => new Response(copy, { headers: { 'content-type': 'application/octet-stream' } });
  }
  const json = JSON.stringify(value);
  return () => new Response(json, { headers: { 'content-type': 'application/json; charset=utf-8' } });
}

function isMethodMap(value: object): value is Partial<Record<string, NativeRouteHandler>> {
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => KNOWN_METHODS.has(k.toUpperCase()) && typeof (value as Record<string, unknown>)[k] === 'function');
}

/** The routes to register for one `NativeRoutes` entry. */
export function nativeRouteEntries(path: string, value: NativeRoutes[string]): NativeRouteEntry[] {
  if (typeof value === 'function') return [{ method: 'ALL', handler: adapt(value as NativeRouteHandler, path) }];
  if (value !== null && typeof value === 'object' && !(value instanceof Response) && !(value instanceof Uint8Array) && isMethodMap(value)) {
    return Object.entries(value).map(([method, handler]) => ({ method: method.toUpperCase(), handler: adapt(handler!, path) }));
  }
  if (value === undefined) throw new TypeError(`withRoutes(): no handler or value for ${path}`);
  const make = staticResponse(value);
  return [{ method: 'GET', handler: (_req, res) => writeWebResponse(res, make()) }];
}
