/**
 * The OpenAPI 3.1 document of a proto file's HTTP mapping, describing what
 * the gateway serves:
 * - every `google.api.http` route (path parameters, query parameters for
 *   body-less requests, the request body rule), answering as grpc-gateway
 *   does: the bare response message or its `response_body` field; a server
 *   stream as NDJSON `{"result": …}` lines and a last `{"error": …}` line;
 * - the default `POST /api/<Service>/<method>` route of every method (under
 *   the gateway's default `http.basePath`, `/api`), answering `{data}`; a
 *   stream as `{"data": …}` lines and a last error-body line;
 * - the error body of every refusal (`{error, message, details}`).
 * Schemas are canonical proto3 JSON (json-schema.ts, `canonical` form).
 */
import { parsePathTemplate } from '../runtime/gateway/http/path-template';
import type { FileModel, HttpRouteModel, Json, MethodModel, ServiceModel } from './model';

type Obj = { [key: string]: Json };

/** First key of the document: JSON has no comments, so the header is a specification extension. */
export const OPENAPI_MARKER_KEY = 'x-generated-by';

/** The gateway's default `http.basePath`: the default routes are served below it. */
export const DEFAULT_BASE_PATH = '/api';

/** Component name of fw's error body; the dot keeps it apart from proto names, which a package would prefix. */
const ERROR_SCHEMA = 'fw.Error';

function ref(name: string): Obj {
  return { $ref: `#/components/schemas/${name}` };
}

const ERROR_BODY: Obj = {
  type: 'object',
  description: 'fw\'s error body: a code from the error catalogue, a message, and details when the error has any (validation violations, the allowed verbs of a 405, …).',
  properties: { error: { type: 'string' }, message: { type: 'string' }, details: {} },
  required: ['error', 'message'],
};

const ERROR_RESPONSE: Obj = {
  description: 'Error: `{error, message, details}`; the status is the error\'s (400 invalid input, 404 unknown entity or route, 415 a body that is not JSON, 500 …).',
  content: { 'application/json': { schema: ref(ERROR_SCHEMA) } },
};

const SSE_CONTENT: Obj = {
  schema: { type: 'string', description: 'Server-Sent Events when the client accepts text/event-stream: one `data:` event per message, then `event: end`, or `event: error` with the error body.' },
};

/** How a route answers: grpc-gateway's shapes (`google.api.http`), or the default route's `{data}`. */
type ReplyStyle = { kind: 'grpc-gateway'; single: Obj } | { kind: 'data-envelope'; single: Obj };

function responseOf(method: MethodModel, style: ReplyStyle): Obj {
  const streaming = method.streaming === 'server' || method.streaming === 'bidirectional';
  const single = style.single;
  if (!streaming) {
    const schema: Obj = style.kind === 'grpc-gateway' ? single : { type: 'object', properties: { data: single }, required: ['data'], additionalProperties: false };
    return { '200': { description: 'OK', content: { 'application/json': { schema } } }, default: ERROR_RESPONSE };
  }
  const item: Obj =
    style.kind === 'grpc-gateway'
      ? { type: 'object', properties: { result: single }, required: ['result'], additionalProperties: false }
      : { type: 'object', properties: { data: single }, required: ['data'], additionalProperties: false };
  const failure: Obj = style.kind === 'grpc-gateway' ? { type: 'object', properties: { error: ref(ERROR_SCHEMA) }, required: ['error'], additionalProperties: false } : ref(ERROR_SCHEMA);
  const line: Obj = { description: 'One line of the NDJSON body: a message, or the error that ended the stream (always the last line).', oneOf: [item, failure] };
  return {
    '200': {
      description: 'A stream: one JSON object per line',
      content: { 'application/x-ndjson': { schema: line, 'x-fw-stream-item': true }, 'text/event-stream': SSE_CONTENT },
    },
    default: ERROR_RESPONSE,
  };
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

/** One OpenAPI path parameter: a segment of the URL, and the request field it fills. */
interface PathParam {
  name: string;
  field: string;
  /** The field's whole sub-pattern when the parameter is part of it (`entries/*`), or a `**` capture. */
  pattern?: string;
}

/**
 * OpenAPI path parameters are single segments. A variable with a sub-pattern
 * of literals and `*` (`{name=projects/*\/topics/*}`) is written out segment
 * by segment (`/projects/{name.1}/topics/{name.2}`), so the document's paths
 * are the URLs served; only a `**` capture stays one `{name}` parameter whose
 * value spans segments (its pattern in the parameter). The whole template is
 * in `x-fw-path-template`.
 */
function openApiPath(route: HttpRouteModel): { path: string; params: PathParam[] } {
  const parsed = parsePathTemplate(route.path);
  const params: PathParam[] = [];
  const parts: string[] = [];
  for (let i = 0; i < parsed.segments.length; ) {
    const variable = parsed.variables.find((v) => v.start === i);
    if (variable !== undefined) {
      const segments = parsed.segments.slice(variable.start, variable.end);
      const sub = segments.map((s) => (s.kind === 'literal' ? s.value : s.kind === 'wildcard' ? '*' : '**'));
      const field = variable.fieldPath;
      if (sub.join('/') === '*') {
        params.push({ name: field, field });
        parts.push(`{${field}}`);
      } else if (!sub.includes('**')) {
        const wildcards = sub.filter((x) => x === '*').length;
        let k = 0;
        for (const x of sub) {
          if (x !== '*') parts.push(x);
          else {
            const name = wildcards === 1 ? field : `${field}.${++k}`;
            params.push({ name, field, pattern: sub.join('/') });
            parts.push(`{${name}}`);
          }
        }
      } else {
        params.push({ name: field, field, pattern: sub.join('/') });
        parts.push(`{${field}}`);
      }
      i = variable.end;
      continue;
    }
    const s = parsed.segments[i];
    parts.push(s?.kind === 'literal' ? s.value : s?.kind === 'wildcard' ? '*' : '**');
    i++;
  }
  return { path: '/' + parts.join('/') + (parsed.verb === undefined ? '' : `:${parsed.verb}`), params };
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
      const { path, params: pathParams } = openApiPath(route);
      op['x-fw-path-template'] = route.path;
      const params: Json[] = pathParams.map((p): Json => {
        const schema = fieldSchema(file, req, camel(p.field));
        if (p.pattern === undefined) return { name: p.name, in: 'path', required: true, schema };
        if (p.pattern.includes('**')) return { name: p.name, in: 'path', required: true, description: `The field ${p.field}: matches ${p.pattern}`, schema: { ...schema, pattern: segmentRegex(p.pattern) } };
        return { name: p.name, in: 'path', required: true, description: `A segment of the field ${p.field} (${p.pattern})`, schema: { type: 'string', pattern: '^[^/]+$' } };
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
      const single = route.responseBody === undefined ? ref(method.response.protoName) : fieldSchema(file, method.response.protoName, camel(route.responseBody));
      op['responses'] = responseOf(method, { kind: 'grpc-gateway', single });
      // Two templates that differ only in a sub-pattern share an OpenAPI path: the second keeps its template as key.
      const key = paths[path]?.[route.method.toLowerCase()] === undefined ? path : route.path;
      const p = (paths[key] ??= {});
      p[route.method.toLowerCase()] = op;
    });
    const def: Obj = { ...base, operationId: `${service.name}_${method.localName}_default` };
    // A client stream over HTTP is a JSON array body, one element per message.
    const clientStream = method.streaming === 'client' || method.streaming === 'bidirectional';
    def['requestBody'] = { required: true, content: { 'application/json': { schema: clientStream ? { type: 'array', items: ref(req) } : ref(req) } } };
    def['responses'] = responseOf(method, { kind: 'data-envelope', single: ref(method.response.protoName) });
    const p = (paths[DEFAULT_BASE_PATH + method.defaultRoute] ??= {});
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
  schemas[ERROR_SCHEMA] = ERROR_BODY;
  return {
    [OPENAPI_MARKER_KEY]: 'Code generated by fw-gen. DO NOT EDIT.',
    openapi: '3.1.0',
    info: { title: file.protoPath, version: '1.0.0' },
    servers: [{ url: '/', description: `The gateway's HTTP port. google.api.http routes are served at their own paths; the default routes below ${DEFAULT_BASE_PATH}, the default http.basePath.` }],
    tags: file.services.map((s): Json => (s.comment === undefined ? { name: s.typeName } : { name: s.typeName, description: s.comment })),
    paths: sortedPaths,
    components: { schemas },
  };
}
