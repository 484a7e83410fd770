/**
 * The table of the cross-transport validation test: each case patches a
 * valid Probe (probe.proto) and states the verdict every transport must give:
 * `valid`, or the first violation's field path and rule id (a prefix for
 * protovalidate's combined ids such as `int32.gte_lte`).
 */

/** A valid Probe in canonical JSON. */
export const BASE: Readonly<Record<string, unknown>> = { name: 'Ada', must: 'm', handle: 'h' };

export interface ProbeCase {
  name: string;
  /** Members set on the base; `undefined` removes one. */
  patch: Record<string, unknown>;
  /** `valid`, or `[field path, rule id (prefix)]` of the first violation. */
  expect: 'valid' | [string, string];
}

const v = (name: string, patch: Record<string, unknown>): ProbeCase => ({ name, patch, expect: 'valid' });
const x = (name: string, patch: Record<string, unknown>, field: string, rule: string): ProbeCase => ({ name, patch, expect: [field, rule] });

export const CASES: readonly ProbeCase[] = [
  // strings
  v('string: in length bounds', { name: 'Bob' }),
  x('string: below min_len', { name: 'A' }, 'name', 'string.min_len'),
  x('string: above max_len', { name: 'Abcdefghijk' }, 'name', 'string.max_len'),
  v('string: email', { email: 'ada@example.com' }),
  x('string: not an email', { email: 'nope' }, 'email', 'string.email'),
  v('string: empty email ignored (IGNORE_IF_ZERO_VALUE)', { email: '' }),
  v('string: uuid', { id: '123e4567-e89b-12d3-a456-426614174000' }),
  x('string: not a uuid', { id: 'xyz' }, 'id', 'string.uuid'),
  // numbers
  v('int32: in range', { age: 30 }),
  x('int32: above lte', { age: 151 }, 'age', 'int32.gte_lte'),
  x('int32: below gte', { age: -1 }, 'age', 'int32.gte_lte'),
  v('int32: decimal string accepted by the JSON mapping', { age: '42' }),
  v('uint32: below lt', { count: 999 }),
  x('uint32: at lt', { count: 1000 }, 'count', 'uint32.lt'),
  v('int64: as a string', { big: '5' }),
  x('int64: not above gt', { big: -5 }, 'big', 'int64.gt'),
  v('double: in range', { ratio: 0.5 }),
  x('double: above lte', { ratio: 1.5 }, 'ratio', 'double.gte_lte'),
  x('double: NaN fails a range', { ratio: 'NaN' }, 'ratio', 'double.gte_lte'),
  // bytes
  v('bytes: within max_len', { blob: 'AQID' }),
  x('bytes: above max_len', { blob: 'AQIDBAU=' }, 'blob', 'bytes.max_len'),
  // enums
  v('enum: by name', { color: 'COLOR_RED' }),
  v('enum: by number', { color: 1 }),
  x('enum: not_in', { color: 'COLOR_BLUE' }, 'color', 'enum.not_in'),
  x('enum: undefined number (defined_only)', { color: 7 }, 'color', 'enum.defined_only'),
  // repeated
  v('repeated: within max_items', { tags: ['a', 'b'] }),
  x('repeated: above max_items', { tags: ['a', 'b', 'c', 'd'] }, 'tags', 'repeated.max_items'),
  x('repeated: not unique', { tags: ['a', 'a'] }, 'tags', 'repeated.unique'),
  x('repeated: item rule', { tags: ['a', ''] }, 'tags[1]', 'string.min_len'),
  // maps
  v('map: within max_pairs', { scores: { x: 1 } }),
  v('map: int32 value as a string', { scores: { x: '1' } }),
  x('map: above max_pairs', { scores: { x: 1, y: 2, z: 3 } }, 'scores', 'map.max_pairs'),
  x('map: value rule', { scores: { x: -1 } }, 'scores["x"]', 'int32.gte'),
  // oneofs
  v('oneof: the other member', { handle: undefined, phone: '12345' }),
  x('oneof: required, none set', { handle: undefined }, 'contact', 'required'),
  x('oneof: member rule', { handle: undefined, phone: '123' }, 'phone', 'string.min_len'),
  // nested messages
  v('nested: valid', { inner: { code: 'ABC' } }),
  x('nested: pattern', { inner: { code: 'abc' } }, 'inner.code', 'string.pattern'),
  v('nested list: valid', { inners: [{ code: 'ABC' }, { code: 'XYZ' }] }),
  x('nested list: second item', { inners: [{ code: 'ABC' }, { code: 'x' }] }, 'inners[1].code', 'string.pattern'),
  // well-known types
  v('timestamp: after gt', { at: '2024-01-01T00:00:00Z' }),
  x('timestamp: not after gt', { at: '1970-01-01T00:00:00Z' }, 'at', 'timestamp.gt'),
  v('duration: within lte', { ttl: '30s' }),
  x('duration: above lte', { ttl: '61s' }, 'ttl', 'duration.lte'),
  // required
  x('required: missing', { must: undefined }, 'must', 'required'),
  x('required: empty string', { must: '' }, 'must', 'required'),
  // field-level CEL
  v('field CEL: holds', { high: 4 }),
  x('field CEL: broken', { high: 3 }, 'high', 'high.even'),
  // message-level CEL
  v('message CEL: holds', { low: 2, high: 4 }),
  x('message CEL: broken', { low: 6, high: 4 }, '', 'low.not_above_high'),
  // proto3 JSON mapping: names
  v('JSON name', { displayName: 'x' }),
  v('proto field name', { display_name: 'x' }),
  x('JSON name and proto name together', { displayName: 'x', display_name: 'y' }, 'display_name', 'proto3_json'),
  // proto3 JSON mapping: wrong types and malformed values (never coerced)
  x('wrong type: object for string', { name: { a: 1 } }, 'name', 'proto3_json'),
  x('wrong type: bool for string', { name: true }, 'name', 'proto3_json'),
  x('wrong type: string for list', { tags: 'notarray' }, 'tags', 'proto3_json'),
  x('wrong type: string for bool', { flag: 'true' }, 'flag', 'proto3_json'),
  v('bool', { flag: true }),
  x('wrong type: letters for int32', { age: 'abc' }, 'age', 'proto3_json'),
  x('wrong type: fraction for int32', { age: 1.5 }, 'age', 'proto3_json'),
  x('wrong type: fraction for int64', { big: 1.5 }, 'big', 'proto3_json'),
  x('out of range: int32', { age: 3000000000 }, 'age', 'proto3_json'),
  x('out of range: negative uint32', { count: -1 }, 'count', 'proto3_json'),
  x('unknown enum name', { color: 'COLOR_PURPLE' }, 'color', 'proto3_json'),
  x('malformed timestamp', { at: 'yesterday' }, 'at', 'proto3_json'),
  x('malformed duration', { ttl: '5 minutes' }, 'ttl', 'proto3_json'),
  x('malformed base64', { blob: '***' }, 'blob', 'proto3_json'),
  x('two members of one oneof', { phone: '12345' }, 'contact', 'proto3_json'),
  x('unknown field', { nope: 1 }, 'nope', 'proto3_json'),
  x('wrong type in a nested message', { inner: { code: 5 } }, 'inner.code', 'proto3_json'),
  x('unknown field in a list item', { inners: [{ code: 'ABC' }, { cod: 'x' }] }, 'inners[1].cod', 'proto3_json'),
];

/** The request JSON of a case. */
export function requestOf(c: ProbeCase): Record<string, unknown> {
  const out: Record<string, unknown> = { ...BASE };
  for (const [k, value] of Object.entries(c.patch)) {
    if (value === undefined) delete out[k];
    else out[k] = value;
  }
  return out;
}
