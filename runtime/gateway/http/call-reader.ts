/**
 * How an HTTP/JSON call is read off a request: the body (identity UTF-8 JSON
 * through json-body.ts's fast path, anything else through the body reader
 * (core/read-body.ts, body-parser's behaviour); both bounded, nesting and prototype keys refused), then the
 * handler's request from the route: the body merged with path parameters
 * (`body: "*"`), a body field, or query + path parameters without a body
 * (routes.ts, query-fields.ts); a client stream is a JSON array body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { TOO_DEEP_MESSAGE, valueTooDeep } from '../../core/json-depth';
import { bytesMayHavePrototypeKeys, hasPrototypeKeys } from '../../core/prototype-keys';
import { readBody as readBodyBytes } from '../../core/read-body';
import { catalogueError, type ServiceError, ServiceErrors } from '../errors';
import type { ResolvedMethod } from '../registry';
import { isPlainJsonBody, readJsonBody } from './json-body';
import { applyQuery } from './query-fields';
import { jsonFieldPath, setPath, type RouteMatch } from './routes';

/** A request as the transport carries it: the parsed body and the route's path parameters. */
export type ParsedRequest = IncomingMessage & { body?: unknown; params?: Record<string, string>; query?: unknown };

/** Builds the handler's request from a parsed HTTP request (`configureHTTP({transformRequest})`). */
export type TransformRequest = (req: ParsedRequest, method: string) => unknown;

/** Marks bodies that might carry prototype keys; only those are walked after parsing (a JSON.parse reviver would slow every request). */
const SUSPECT = Symbol('fw.gateway.suspectBody');

/** The body reader's `verify` hook: flags a body whose bytes may hold a prototype key. */
function flagSuspect(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  if (bytesMayHavePrototypeKeys(buf)) (req as IncomingMessage & { [SUSPECT]?: boolean })[SUSPECT] = true;
}

const anyBody = (): boolean => true;
const isUnicode = (charset: string): boolean => charset.slice(0, 4) === 'utf-';
/** body-parser's non-strict JSON: an empty body is `{}`. */
const parseLooseJson = (body: string | Buffer): unknown => (body.length === 0 ? {} : JSON.parse(String(body)));

/** The JSON body parser for requests off the fast path (compressed, other charsets), bounded by `limit` bytes. */
export function jsonBodyParser(limit: number): RequestHandler {
  return ((req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) =>
    readBodyBytes(req, res, next, { limit, inflate: true, shouldParse: anyBody, defaultCharset: 'utf-8', isValidCharset: isUnicode, verify: flagSuspect, parse: parseLooseJson })) as unknown as RequestHandler;
}

function bodyError(err: unknown): ServiceError {
  const e = err as { type?: string; status?: number; limit?: number; message?: string };
  if (e.type === 'entity.too.large' || e.status === 413) return ServiceErrors.tooLarge('Request body', e.limit ?? 0);
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') return catalogueError('UNSUPPORTED_MEDIA_TYPE', e.message ?? 'Unsupported body encoding');
  if (e.type === 'entity.parse.failed') return catalogueError('INVALID_JSON', `Request body is not valid JSON: ${e.message ?? ''}`.trim());
  return catalogueError('BAD_REQUEST', e.message ?? 'Unreadable request body');
}

/**
 * Reads and parses the body into `req.body`; `done` runs once, with the
 * refusal when there is one (callback style: this is the hot path).
 */
export function readBody(req: ParsedRequest, res: ServerResponse, parser: RequestHandler, limit: number, done: (refusal: ServiceError | undefined) => void): void {
  // req.headers is a getter with a megamorphic symbol load inside: read it once per request here.
  const headers = req.headers;
  if (isPlainJsonBody(headers)) {
    readJsonBody(req, headers, limit, (outcome) => {
      if (!outcome.ok) {
        done(outcome.error);
        return;
      }
      if (outcome.suspect && hasPrototypeKeys(outcome.body)) {
        done(ServiceErrors.prototypeKey());
        return;
      }
      req.body = outcome.body;
      done(undefined);
    });
    return;
  }
  parser(req as never, res as never, (err?: unknown) => {
    if (err !== undefined) done(bodyError(err));
    else if (valueTooDeep(req.body)) done(catalogueError('INVALID_ARGUMENT', TOO_DEEP_MESSAGE));
    else if ((req as ParsedRequest & { [SUSPECT]?: boolean })[SUSPECT] === true && hasPrototypeKeys(req.body)) done(ServiceErrors.prototypeKey());
    else done(undefined);
  });
}

/** The request's query string as URLSearchParams. */
function searchOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
}

function* arrayItems(value: unknown[]): Iterable<unknown> {
  yield* value;
}

async function* toAsync(items: Iterable<unknown>, fromJSON: ((v: unknown) => unknown) | undefined): AsyncIterable<unknown> {
  for (const item of items) yield fromJSON === undefined ? item : fromJSON(item);
}

/** The handler's request for `match`; throws when the body does not fit the method. */
export function buildRequest(req: ParsedRequest, match: RouteMatch, query: Record<string, string>, resolved: ResolvedMethod | undefined, transformRequest: TransformRequest | undefined): unknown {
  if (transformRequest !== undefined) {
    req.params = match.params;
    return transformRequest(req, match.method);
  }
  const streaming = resolved?.streaming ?? 'none';
  const fromJSON = resolved?.fromJSON;
  const param = resolved?.paramValue;
  if (streaming === 'client' || streaming === 'bidirectional') {
    // A client stream over HTTP is a JSON array body, one element per message.
    if (!Array.isArray(req.body)) throw ServiceErrors.badRequest('A client-streaming method over HTTP takes a JSON array body');
    return toAsync(arrayItems(req.body), fromJSON);
  }
  let json: unknown;
  const body = req.body;
  if (body === undefined || body === null) {
    const merged: Record<string, unknown> = {};
    if (Object.keys(query).length > 0) applyQuery(merged, searchOf(req), match.inputSchema);
    for (const k of Object.keys(match.params)) setPath(merged, jsonFieldPath(k), param === undefined ? match.params[k] : param(k, match.params[k] as string));
    json = merged;
  } else if (match.body === '*' || match.body === undefined) {
    if (typeof body !== 'object' || Array.isArray(body)) throw ServiceErrors.badRequest('Request body must be a JSON object');
    const keys = Object.keys(match.params);
    if (keys.length === 0) json = body;
    else {
      const merged = { ...(body as Record<string, unknown>) };
      for (const k of keys) setPath(merged, jsonFieldPath(k), param === undefined ? match.params[k] : param(k, match.params[k] as string));
      json = merged;
    }
  } else {
    const merged: Record<string, unknown> = {};
    if (Object.keys(query).length > 0) applyQuery(merged, searchOf(req), match.inputSchema);
    // The body field first, so a path variable inside it (`{book.name}` with body: "book") is kept.
    setPath(merged, jsonFieldPath(match.body), typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : body);
    for (const k of Object.keys(match.params)) setPath(merged, jsonFieldPath(k), param === undefined ? match.params[k] : param(k, match.params[k] as string));
    json = merged;
  }
  return fromJSON === undefined ? json : fromJSON(json);
}
