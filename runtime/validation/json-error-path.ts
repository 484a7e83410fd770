/**
 * Where in a JSON value the proto3 JSON mapping failed. @bufbuild/protobuf's
 * decoder names the field's type (`user.Address.city`) but not its path from
 * the root; on the error path only, this walks the value member by member,
 * asking the same decoder about each, down to the first member it refuses.
 */
import { fromJson, type DescField, type DescMessage, type JsonReadOptions } from '@bufbuild/protobuf';
import { JSON_MAPPING_RULE, type FieldViolation } from './violations';

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** The library's reason without its `cannot decode field x.Y.z from JSON: ` prefix. */
function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const cut = text.indexOf(' from JSON: ');
  return cut === -1 ? text : text.slice(cut + ' from JSON: '.length);
}

function fails(schema: DescMessage, json: unknown, options: Partial<JsonReadOptions>): unknown {
  try {
    fromJson(schema, json as never, options);
    return undefined;
  } catch (error) {
    return error ?? new Error('invalid');
  }
}

/** The oneof (or field) the decoder's FieldError names, joined to `path`. */
function conflictPath(error: unknown, path: string): string {
  const cause = (error as { cause?: { field?: () => { name?: unknown } } } | undefined)?.cause;
  const name = typeof cause?.field === 'function' ? cause.field().name : undefined;
  return typeof name === 'string' ? join(path, name) : path;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Message types whose JSON form is an object of their fields (not a WKT with its own JSON shape). */
function plainMessage(field: DescField): DescMessage | undefined {
  const m = field.message;
  if (m === undefined || m.typeName.startsWith('google.protobuf.')) return undefined;
  return m;
}

/**
 * The violation for `json`, which `fromJson(schema, json)` refused with `error`.
 * @param path proto-name path of `json` from the request root
 */
export function locateJsonError(schema: DescMessage, json: unknown, error: unknown, options: Partial<JsonReadOptions>, path = ''): FieldViolation {
  if (!isObject(json)) return { field: path, rule: JSON_MAPPING_RULE, message: `expected a JSON object for ${schema.typeName}` };
  for (const key of Object.keys(json)) {
    const field = schema.fields.find((f) => f.name === key || f.jsonName === key);
    if (field === undefined) {
      if (options.ignoreUnknownFields === true) continue;
      return { field: join(path, key), rule: JSON_MAPPING_RULE, message: `unknown field "${key}"` };
    }
    const value = json[key];
    const own = fails(schema, { [key]: value }, options);
    if (own === undefined) continue;
    const where = join(path, field.name);
    const nested = plainMessage(field);
    if (nested !== undefined && field.fieldKind === 'message' && isObject(value)) {
      return locateJsonError(nested, value, own, options, where);
    }
    if (nested !== undefined && field.fieldKind === 'list' && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = fails(nested, value[i], options);
        if (item !== undefined) return locateJsonError(nested, value[i], item, options, `${where}[${i}]`);
      }
    }
    if (nested !== undefined && field.fieldKind === 'map' && isObject(value)) {
      for (const k of Object.keys(value)) {
        const entry = fails(nested, value[k], options);
        if (entry !== undefined) return locateJsonError(nested, value[k], entry, options, `${where}[${JSON.stringify(k)}]`);
      }
    }
    return { field: where, rule: JSON_MAPPING_RULE, message: reason(own) };
  }
  // Every member decodes alone: the members conflict (two members of one oneof, a field set twice).
  return { field: conflictPath(error, path), rule: JSON_MAPPING_RULE, message: reason(error) };
}
