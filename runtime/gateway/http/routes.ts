/**
 * HTTP route table of the gateway: explicit `configureHTTP({routes})`
 * entries, then `google.api.http` rules of generated services, then the
 * default `POST {basePath}/<Service>/<method>`. Static paths are a map lookup;
 * templated ones (`/users/{id}` or `/users/:id`) match segment by segment, so
 * no route ever compiles to a backtracking regex.
 */
import type { ServiceRegistry } from '../registry';

/** What a request path resolved to. */
export interface RouteMatch {
  service: string;
  method: string;
  /** Path parameters; dotted names (`{user.id}`) are nested on merge. */
  params: Record<string, string>;
  /** `*` → the whole body is the request; a field name → the body goes into that field. */
  body: string | undefined;
}

interface Segment {
  literal: string | undefined;
  param: string | undefined;
}

interface PatternRoute {
  verb: string;
  segments: Segment[];
  service: string;
  method: string;
  body: string | undefined;
}

function splitPath(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (const p of parts) if (p !== '') out.push(p);
  return out;
}

function parseTemplate(path: string): Segment[] {
  return splitPath(path).map((part) => {
    const brace = /^\{([A-Za-z_][\w.]*)(?:=[^}]*)?\}$/.exec(part);
    if (brace !== null) return { literal: undefined, param: brace[1] };
    if (part.startsWith(':') && part.length > 1) return { literal: undefined, param: part.slice(1) };
    return { literal: part, param: undefined };
  });
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
      this.#add((m[1] as string).toUpperCase(), joinPath(this.#basePrefix, m[2] as string), t[1] as string, t[2] as string, undefined);
    }
    for (const service of registry.services()) {
      for (const m of service.methods) {
        for (const rule of m.descriptor?.http ?? []) this.#add(rule.method, rule.path, service.name, m.method, rule.body);
      }
    }
  }

  #add(verb: string, path: string, service: string, method: string, body: string | undefined): void {
    const segments = parseTemplate(path);
    if (segments.every((s) => s.literal !== undefined)) {
      const key = `${verb} ${normalize(path)}`;
      if (!this.#static.has(key)) this.#static.set(key, { service, method, params: {}, body });
      return;
    }
    this.#patterns.push({ verb, segments, service, method, body });
  }

  /** The route for a request, or undefined. `path` has no query string. */
  match(verb: string, path: string): RouteMatch | undefined {
    // Without explicit or google.api.http routes (the common gateway) skip building the lookup key.
    const hasStatic = this.#static.size > 0;
    const exact = hasStatic ? this.#static.get(`${verb} ${path}`) : undefined;
    if (exact !== undefined) return { service: exact.service, method: exact.method, params: {}, body: exact.body };
    if (hasStatic && (path.includes('//') || (path.length > 1 && path.endsWith('/')))) {
      const loose = this.#static.get(`${verb} ${normalize(path)}`);
      if (loose !== undefined) return { service: loose.service, method: loose.method, params: {}, body: loose.body };
    }
    if (this.#patterns.length > 0) {
      const found = this.#matchPattern(verb, splitPath(path));
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

  #matchPattern(verb: string, parts: string[]): RouteMatch | undefined {
    for (const route of this.#patterns) {
      if (route.verb !== verb || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i] as Segment;
        const part = parts[i] as string;
        if (seg.literal !== undefined) {
          if (seg.literal !== part) {
            ok = false;
            break;
          }
        } else if (seg.param !== undefined) {
          try {
            params[seg.param] = decodeURIComponent(part);
          } catch {
            ok = false;
            break;
          }
        }
      }
      if (ok) return { service: route.service, method: route.method, params, body: route.body };
    }
    return undefined;
  }
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
