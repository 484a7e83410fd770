/**
 * The OpenAPI 3.1 document of a proto file's HTTP mapping: every
 * `google.api.http` route (path parameters, query parameters for body-less
 * requests, the request body rule) and the default `POST /<Service>/<method>`
 * route of every method, relative to the gateway's base path.
 */
import { parsePathTemplate } from '../runtime/gateway/http/path-template';
import type { FileModel, HttpRouteModel, Json, MethodModel, ServiceModel } from './model';

type Obj = { [key: string]: Json };

/** First key of the document: JSON has no comments, so the header is a specification extension. */
export const OPENAPI_MARKER_KEY = 'x-generated-by';

function ref(name: string): Obj {
  return { $ref: `#/components/schemas/${name}` };
}

const ERROR_RESPONSE: Obj = {
  description: 'Error (spec 7.3): `{error, message, details}`',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { error: { type: 'string' }, message: { type: 'string' }, details: {} },
        required: ['error'],
      },
    },
  },
};

function responseOf(method: MethodModel, wrap: boolean): Obj {
  const single = ref(method.response.protoName);
  const streaming = method.streaming === 'server' || method.streaming === 'bidirectional';
  const schema: Obj = wrap ? { type: 'object', properties: { data: single }, required: ['data'] } : single;
  const content: Obj = streaming ? { 'application/x-ndjson': { schema, 'x-fw-stream-item': true } } : { 'application/json': { schema } };
  return { '200': { description: streaming ? 'One JSON message per line' : 'OK', content }, default: ERROR_RESPONSE };
}

function fieldSchema(file: FileModel, message: string, field: string): Obj {
  const def = file.schemas[message];
  if (def !== null && typeof def === 'object' && !Array.isArray(def)) {
    const props = def['properties'];
    if (props !== null && typeof props === 'object' && !Array.isArray(props)) {
      const s = props[field];
      if (s !== undefined && s !== null && typeof s === 'object' && !Array.isArray(s)) return s;
    }
  }
  return { type: 'string' };
}

/**
 * OpenAPI paths only know `{name}`: a variable with a sub-pattern becomes
 * `{name}` and the sub-pattern goes into the parameter (`pattern`, and the
 * whole template in `x-fw-path-template`).
 */
function openApiPath(route: HttpRouteModel): { path: string; patterns: Map<string, string> } {
  const parsed = parsePathTemplate(route.path);
  const patterns = new Map<string, string>();
  const parts: string[] = [];
  for (let i = 0; i < parsed.segments.length; ) {
    const variable = parsed.variables.find((v) => v.start === i);
    if (variable !== undefined) {
      const sub = parsed.segments.slice(variable.start, variable.end).map((s) => (s.kind === 'literal' ? s.value : s.kind === 'wildcard' ? '*' : '**'));
      if (sub.join('/') !== '*') patterns.set(variable.fieldPath, sub.join('/'));
      parts.push(`{${variable.fieldPath}}`);
      i = variable.end;
      continue;
    }
    const s = parsed.segments[i];
    parts.push(s?.kind === 'literal' ? s.value : s?.kind === 'wildcard' ? '*' : '**');
    i++;
  }
  return { path: '/' + parts.join('/') + (parsed.verb === undefined ? '' : `:${parsed.verb}`), patterns };
}

/** A segment pattern (`projects/*\/topics/*`) as the regex OpenAPI's `pattern` expects. */
function segmentRegex(pattern: string): string {
  const parts = pattern.split('/').map((p) => (p === '*' ? '[^/]+' : p === '**' ? '.*' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return `^${parts.join('/')}$`;
}

function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function operations(file: FileModel, service: ServiceModel, paths: Record<string, Obj>): void {
  for (const method of service.methods) {
    const base: Obj = { operationId: `${service.name}_${method.name}`, tags: [service.typeName] };
    if (method.comment !== undefined) base['description'] = method.comment;
    if (method.streaming !== 'none') base['x-fw-streaming'] = method.streaming;
    const req = method.request.protoName;
    method.http.forEach((route, i) => {
      const op: Obj = { ...base };
      if (i > 0) op['operationId'] = `${service.name}_${method.name}_${i}`;
      const { path, patterns } = openApiPath(route);
      op['x-fw-path-template'] = route.path;
      const params: Json[] = route.params.map((p): Json => {
        const pattern = patterns.get(p);
        const schema = fieldSchema(file, req, camel(p));
        return pattern === undefined
          ? { name: p, in: 'path', required: true, schema }
          : { name: p, in: 'path', required: true, description: `Matches ${pattern}`, schema: { ...schema, pattern: segmentRegex(pattern) } };
      });
      if (route.body === undefined) {
        const def = file.schemas[req];
        const props = def !== null && typeof def === 'object' && !Array.isArray(def) ? def['properties'] : undefined;
        if (props !== null && typeof props === 'object' && !Array.isArray(props) && props !== undefined) {
          const inPath = new Set(route.params.map(camel));
          for (const [name, schema] of Object.entries(props)) {
            if (inPath.has(name) || schema === null || typeof schema !== 'object' || Array.isArray(schema) || '$ref' in schema) continue;
            params.push({ name, in: 'query', required: false, schema });
          }
        }
      } else {
        const bodySchema = route.body === '*' ? ref(req) : fieldSchema(file, req, camel(route.body));
        op['requestBody'] = { required: true, content: { 'application/json': { schema: bodySchema } } };
      }
      if (params.length > 0) op['parameters'] = params;
      op['responses'] = responseOf(method, false);
      // Two templates that differ only in a sub-pattern share an OpenAPI path: the second keeps its template as key.
      const key = paths[path]?.[route.method.toLowerCase()] === undefined ? path : route.path;
      const p = (paths[key] ??= {});
      p[route.method.toLowerCase()] = op;
    });
    const def: Obj = { ...base, operationId: `${service.name}_${method.localName}_default` };
    def['requestBody'] = { required: true, content: { 'application/json': { schema: ref(req) } } };
    def['responses'] = responseOf(method, true);
    const p = (paths[method.defaultRoute] ??= {});
    p['post'] = def;
  }
}

/** Builds the OpenAPI document of one file's services. */
export function openApiDocument(file: FileModel): Obj {
  const paths: Record<string, Obj> = {};
  for (const service of file.services) operations(file, service, paths);
  const sortedPaths: Obj = {};
  for (const key of Object.keys(paths).sort()) sortedPaths[key] = paths[key] as Obj;
  const schemas: Obj = {};
  for (const key of Object.keys(file.schemas).sort()) schemas[key] = file.schemas[key] as Json;
  return {
    [OPENAPI_MARKER_KEY]: 'Code generated by fw-gen. DO NOT EDIT.',
    openapi: '3.1.0',
    info: { title: file.protoPath, version: '1.0.0' },
    tags: file.services.map((s): Json => (s.comment === undefined ? { name: s.typeName } : { name: s.typeName, description: s.comment })),
    paths: sortedPaths,
    components: { schemas },
  };
}
