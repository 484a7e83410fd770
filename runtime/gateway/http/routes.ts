/**
 * HTTP route table of the gateway: explicit `configureHTTP({routes})`
 * entries, then `google.api.http` rules of generated services, then the
 * default `POST {basePath}/<Service>/<method>`. Static paths are a map lookup;
 * templated ones (`/users/{id}`, `/v1/{name=projects/*\/topics/*}`,
 * `/v1/{name=operations/**}:cancel`, or Express-style `/users/:id`) match
 * segment by segment (path-template.ts), so no route ever compiles to a
 * backtracking regex. Routes with a custom verb are tried before those
 * without; otherwise definition order wins.
 */
import type { ServiceRegistry } from '../../rpc/registry';
import { isLiteralTemplate, matchPathTemplate, parsePathTemplate, type PathTemplate } from './path-template';

/** What a request path resolved to. */
export interface RouteMatch {
  service: string;
  method: string;
  /** Path parameters; dotted names (`{user.id}`) are nested on merge. */
  params: Record<string, string>;
  /** `*` → the whole body is the request; a field name → the body goes into that field. */
  body: string | undefined;
  /** `response_body`: the reply is this field of the response instead of the whole message. */
  responseBody?: string | undefined;
  /** A `google.api.http` rule: replies as grpc-gateway gives them (the bare message, `{"result": …}` stream lines), not in `{data}`. */
  grpcGateway?: boolean;
  /** The request's JSON Schema (generated services): which query parameters repeat or are booleans. */
  inputSchema?: unknown;
}

interface PatternRoute {
  verb: string;
  template: PathTemplate;
  service: string;
  method: string;
  body: string | undefined;
  responseBody: string | undefined;
  inputSchema: unknown;
  grpcGateway: boolean;
}

function splitPath(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (const p of parts) if (p !== '') out.push(p);
  return out;
}

/** Express-style `:id` segments (configureHTTP routes) become `{id}`; google.api.http templates pass through. */
function toTemplate(path: string): string {
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.replace(/(^|\/):([A-Za-z_][\w.]*)(?=\/|$)/g, '$1{$2}');
}

function joinPath(base: string, path: string): string {
  const b = base.endsWith('/') ? base.slice(0, -1) : base;
  return b + (path.startsWith('/') ? path : `/${path}`);
}

function normalize(path: string): string {
  return '/' + splitPath(path).join('/');
}

/** Maps `(verb, path)` to a gateway method; rebuilt when services or HTTP config change. */
export class RouteTable {
  readonly #static = new Map<string, RouteMatch>();
  readonly #patterns: PatternRoute[] = [];
  readonly #verbPatterns: PatternRoute[] = [];
  readonly #basePrefix: string;
  /** `#basePrefix + '/'`, built once rather than per request. */
  readonly #baseDir: string;

  /**
   * @param routes `configureHTTP` map: `'GET /users/:id' → 'UserService.getUser'`
   */
  constructor(registry: ServiceRegistry, basePath: string, routes: Record<string, string>) {
    this.#basePrefix = normalize(basePath) === '/' ? '' : normalize(basePath);
    this.#baseDir = this.#basePrefix + '/';
    for (const [spec, target] of Object.entries(routes)) {
      const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(spec);
      const t = /^([^.]+)\.(.+)$/.exec(target);
      if (m === null || t === null) throw new TypeError(`configureHTTP routes: "${spec}": "${target}" must look like "GET /path": "Service.method"`);
      this.#add((m[1] as string).toUpperCase(), joinPath(this.#basePrefix, m[2] as string), t[1] as string, t[2] as string, undefined, undefined, undefined, false);
    }
    for (const service of registry.services()) {
      for (const m of service.methods) {
        for (const rule of m.descriptor?.http ?? []) this.#add(rule.method, rule.path, service.name, m.method, rule.body, rule.responseBody, m.descriptor?.inputSchema, true);
      }
    }
  }

  #add(verb: string, path: string, service: string, method: string, body: string | undefined, responseBody: string | undefined, inputSchema: unknown, grpcGateway: boolean): void {
    const template = parsePathTemplate(toTemplate(path));
    if (isLiteralTemplate(template)) {
      const key = `${verb} ${normalize(path)}`;
      if (!this.#static.has(key)) this.#static.set(key, { service, method, params: {}, body, responseBody, inputSchema, grpcGateway });
      return;
    }
    (template.verb === undefined ? this.#patterns : this.#verbPatterns).push({ verb, template, service, method, body, responseBody, inputSchema, grpcGateway });
  }

  /** The route for a request, or undefined. `path` has no query string. */
  match(verb: string, path: string): RouteMatch | undefined {
    // Without explicit or google.api.http routes (the common gateway) skip building the lookup key.
    const hasStatic = this.#static.size > 0;
    const exact = hasStatic ? this.#static.get(`${verb} ${path}`) : undefined;
    if (exact !== undefined) return { ...exact, params: {} };
    if (hasStatic && (path.includes('//') || (path.length > 1 && path.endsWith('/')))) {
      const loose = this.#static.get(`${verb} ${normalize(path)}`);
      if (loose !== undefined) return { ...loose, params: {} };
    }
    if (this.#patterns.length > 0 || this.#verbPatterns.length > 0) {
      const parts = splitPath(path);
      const found = (path.includes(':') ? this.#matchPattern(this.#verbPatterns, verb, parts) : undefined) ?? this.#matchPattern(this.#patterns, verb, parts);
      if (found !== undefined) return found;
    }
    // Default binding: POST {basePath}/<Service>/<method>.
    if (verb === 'POST' && (this.#basePrefix === '' || path.startsWith(this.#baseDir))) {
      // Indexes into path: no intermediate `rest` string.
      const start = this.#baseDir.length;
      const slash = path.indexOf('/', start);
      if (slash > start && slash < path.length - 1 && path.indexOf('/', slash + 1) === -1) {
        return { service: path.slice(start, slash), method: path.slice(slash + 1), params: {}, body: '*' };
      }
    }
    return undefined;
  }

  /**
   * The verbs whose explicit or `google.api.http` routes match `path`, for a
   * 405's `Allow` when the request's own verb matched none; empty when the
   * path is bound to nothing. Only asked on a miss, so it may be slow.
   */
  allowedVerbs(path: string): string[] {
    const verbs = new Set<string>();
    const normal = normalize(path);
    for (const key of this.#static.keys()) {
      const space = key.indexOf(' ');
      if (key.slice(space + 1) === normal) verbs.add(key.slice(0, space));
    }
    const parts = splitPath(path);
    for (const route of [...this.#patterns, ...this.#verbPatterns]) if (matchPathTemplate(route.template, parts) !== undefined) verbs.add(route.verb);
    return [...verbs].sort();
  }

  #matchPattern(routes: readonly PatternRoute[], verb: string, parts: string[]): RouteMatch | undefined {
    for (const route of routes) {
      if (route.verb !== verb) continue;
      const params = matchPathTemplate(route.template, parts);
      if (params !== undefined) return { service: route.service, method: route.method, params, body: route.body, responseBody: route.responseBody, inputSchema: route.inputSchema, grpcGateway: route.grpcGateway };
    }
    return undefined;
  }
}

/** A proto field path (`book.display_name`) in JSON names (`book.displayName`), as ts-proto's toJSON writes them. */
export function jsonFieldPath(path: string): string {
  return path.includes('_') ? path.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) : path;
}

/** The value at a dotted JSON field path, or undefined. */
export function getPath(source: unknown, dotted: string): unknown {
  let node = source;
  for (const key of dotted.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Sets `a.b.c = value` on target, ignoring prototype keys. */
export function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node = target;
  for (let i = 0; i < keys.length - 1; i++) {
    const k = keys[i] as string;
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') return;
    const next = node[k];
    if (next === null || typeof next !== 'object') node[k] = {};
    node = node[k] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1] as string;
  if (last === '__proto__' || last === 'constructor' || last === 'prototype') return;
  node[last] = value;
}
