/**
 * Query parameters → request fields, as grpc-gateway maps them: `a.b=1` sets
 * the nested field `a.b`; a repeated field takes every occurrence
 * (`tags=x&tags=y`, or one `tags=x`); `true`/`false` become booleans. The
 * method's JSON Schema (fw-gen's `inputSchema`) says which fields repeat and
 * which are booleans; without one, a key given twice becomes an array. A
 * non-repeated field given twice, or a boolean that is neither `true` nor
 * `false`, is a 400, not a guess.
 */
import { ServiceErrors } from '../errors';
import { jsonFieldPath, setPath } from './routes';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; $ref?: string; $defs?: Record<string, Schema> };

/** The schema of field `dotted` in `root`, following `$ref`s into `root.$defs`; undefined when unknown. */
function fieldSchema(root: Schema, dotted: string): Schema | undefined {
  let node: Schema | undefined = root;
  for (const key of dotted.split('.')) {
    node = resolve(root, node)?.properties?.[key];
    if (node === undefined) return undefined;
  }
  return resolve(root, node);
}

function resolve(root: Schema, node: Schema | undefined): Schema | undefined {
  const ref = node?.$ref;
  if (ref === undefined || !ref.startsWith('#/$defs/')) return node;
  return root.$defs?.[ref.slice('#/$defs/'.length)];
}

function hasType(schema: Schema | undefined, type: string): boolean {
  const t = schema?.type;
  return t === type || (Array.isArray(t) && t.includes(type));
}

function scalar(schema: Schema | undefined, key: string, value: string): unknown {
  if (!hasType(schema, 'boolean')) return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw ServiceErrors.badRequest(`Query parameter ${key} must be true or false`);
}

/** Sets each query parameter of `search` on `target` (existing path-parameter values win). */
export function applyQuery(target: Record<string, unknown>, search: URLSearchParams, schema: unknown): void {
  const root = (typeof schema === 'object' && schema !== null ? schema : {}) as Schema;
  const grouped = new Map<string, string[]>();
  for (const [key, value] of search) {
    const list = grouped.get(key);
    if (list === undefined) grouped.set(key, [value]);
    else list.push(value);
  }
  for (const [raw, values] of grouped) {
    const key = jsonFieldPath(raw);
    const field = schema === undefined ? undefined : fieldSchema(root, key);
    if (hasType(field, 'array')) {
      const items = resolve(root, field?.items);
      setPath(target, key, values.map((v) => scalar(items, key, v)));
    } else if (values.length > 1) {
      if (schema !== undefined) throw ServiceErrors.badRequest(`Query parameter ${key} is not repeated but was given ${values.length} times`);
      setPath(target, key, values);
    } else setPath(target, key, scalar(field, key, values[0] as string));
  }
}
