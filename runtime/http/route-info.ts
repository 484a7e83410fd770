/**
 * Builds the `RouteInfo` list of `getRoutes()` (spec 2.3), walking into
 * mounted routers and prefixing their paths with the mount path.
 */
import { USE, type Layer } from './layer';
import type { RouteInfo } from './types';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function joinPath(prefix: string, path: string): string {
  if (prefix === '' || prefix === '/') return path;
  if (path === '/' || path === '') return prefix;
  return prefix.replace(/\/$/, '') + (path.startsWith('/') ? path : '/' + path);
}

function prefixed(prefix: string, regexp: RegExp): RegExp {
  if (prefix === '' || prefix === '/') return regexp;
  const inner = regexp.source.startsWith('^') ? regexp.source.slice(1) : `.*?(?:${regexp.source})`;
  return new RegExp(`^${escapeRegExp(prefix.replace(/\/$/, ''))}${inner}`, regexp.flags);
}

/** The routes of `layers`, mounted under `prefix`. */
export function collectRoutes(layers: readonly Layer[], prefix: string): RouteInfo[] {
  const routes: RouteInfo[] = [];
  for (const layer of layers) {
    if (layer.method === USE) {
      if (layer.router === null) continue;
      const mount = typeof layer.pattern === 'string' ? joinPath(prefix, layer.pattern) : prefix;
      routes.push(...collectRoutes(layer.router.layers, mount));
      continue;
    }
    const handlers = layer.handlers;
    routes.push({
      method: layer.method,
      path: typeof layer.pattern === 'string' ? joinPath(prefix, layer.pattern) : joinPath(prefix, layer.pattern.toString()),
      handler: handlers[handlers.length - 1]!,
      middleware: handlers.slice(0, -1),
      params: [...layer.matcher.keys],
      regexp: prefixed(prefix, layer.matcher.regexp),
    });
  }
  return routes;
}
