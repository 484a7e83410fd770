/**
 * The decoder of one message type, as JavaScript over ./wire-prelude.ts:
 * `function d<i>(b, e, depth)` reads fields up to `e` into a plain object
 * shaped as @grpc/proto-loader's `toObject` gives it under fw's options —
 * defaults filled (repeated fields, then maps, then singular fields, in field
 * number order), enums as names (unknown numbers kept), each set oneof member
 * named by its oneof's property. A tag whose wire type does not match its
 * field is skipped as an unknown field.
 */
import { isEnum, isMessage, type ReflectedField, type ReflectedType } from './reflection';
import { scalarKind, tagValue, type LongForm } from './scalar-kinds';
import type { CodecTables } from './codec-tables';

/** The JavaScript literal of a singular field's default, as toObject fills it. */
function defaultLiteral(field: ReflectedField, form: LongForm, tables: CodecTables): string {
  const resolved = field.resolvedType;
  if (isMessage(resolved)) return 'null';
  if (isEnum(resolved)) return JSON.stringify(resolved.valuesById[field.typeDefault as number] ?? field.typeDefault);
  const value = field.typeDefault;
  if (typeof value === 'object' && value !== null && 'low' in value) {
    const bits = value as { low: number; high: number; unsigned: boolean };
    const raw = (BigInt(bits.high >>> 0) << 32n) | BigInt(bits.low >>> 0);
    const big = bits.unsigned ? raw : BigInt.asIntN(64, raw);
    return form === 'bigint' ? `${big}n` : form === 'string' ? JSON.stringify(String(big)) : String(Number(big));
  }
  if (field.type === 'bytes') return 'Buffer.alloc(0)';
  if (typeof value === 'number') return numberLiteral(value);
  return tables.literal(value);
}

function numberLiteral(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return Object.is(value, -0) ? '-0' : String(value);
}

/** Expression reading one value of `field`'s element type up to `end`. */
function readValue(field: ReflectedField, type: string, form: LongForm, tables: CodecTables, end: string): string {
  const resolved = field.resolvedType;
  if (isMessage(resolved)) throw new Error('messages are read by readMessage');
  if (isEnum(resolved)) return `en(${tables.enumNames(resolved)}, u32(b, ${end}) | 0)`;
  const kind = scalarKind(type, form);
  if (kind === undefined) throw new Error(`no scalar kind for ${type}`);
  return kind.read(end);
}

function wireTypeOf(field: ReflectedField, form: LongForm): number {
  if (isMessage(field.resolvedType)) return 2;
  if (isEnum(field.resolvedType)) return 0;
  return scalarKind(field.type, form)?.wireType ?? 2;
}

function packable(field: ReflectedField, form: LongForm): boolean {
  if (isMessage(field.resolvedType)) return false;
  if (isEnum(field.resolvedType)) return true;
  return scalarKind(field.type, form)?.packable ?? false;
}

/** Statements of one map entry: key and value with their defaults, then the assignment. */
function mapEntry(field: ReflectedField, prop: string, form: LongForm, tables: CodecTables): string {
  const keyType = field.keyType ?? 'string';
  const keyKind = scalarKind(keyType, form);
  if (keyKind === undefined) throw new Error(`map key ${keyType}`);
  const keyDefault = keyType === 'string' ? "''" : keyType === 'bool' ? 'false' : '0';
  const resolved = field.resolvedType;
  let valueDefault: string;
  let valueRead: string;
  let valueWire: number;
  if (isMessage(resolved)) {
    valueDefault = 'null';
    valueRead = `d${tables.typeIndex(resolved)}(b, lim(b, me), depth + 1)`;
    valueWire = 2;
  } else {
    valueDefault = isEnum(resolved) ? JSON.stringify(resolved.valuesById[0] ?? 0) : defaultOfScalar(field.type, form);
    valueRead = readValue(field, field.type, form, tables, 'me');
    valueWire = wireTypeOf(field, form);
  }
  const missingMessage = isMessage(resolved) ? `if (v === null) v = d${tables.typeIndex(resolved)}(b, p, depth + 1);` : '';
  const assign = keyType === 'string' ? `setKey(${prop}, k, v);` : `${prop}[k] = v;`;
  return `{ const me = lim(b, e); let k = ${keyDefault}; let v = ${valueDefault};
        while (p < me) { const t2 = tag(b, me); switch (t2) {
          case ${tagValue(1, keyKind.wireType)}: k = ${keyKind.read('me')}; break;
          case ${tagValue(2, valueWire)}: v = ${valueRead}; break;
          default: unknown(b, me, t2, depth);
        } }
        if (p !== me) truncated();
        ${missingMessage}
        ${assign} break; }`;
}

function defaultOfScalar(type: string, form: LongForm): string {
  if (type === 'string') return "''";
  if (type === 'bool') return 'false';
  if (type === 'bytes') return 'Buffer.alloc(0)';
  if (['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64'].includes(type)) return form === 'bigint' ? '0n' : form === 'string' ? "'0'" : '0';
  return '0';
}

/** The decoder function of `type`, numbered `index` in its group. */
export function decoderSource(type: ReflectedType, index: number, form: LongForm, tables: CodecTables): string {
  const fields = [...type.fieldsArray].map((f) => f.resolve()).sort((a, b) => a.id - b.id);
  const plain = fields.filter((f) => f.partOf === null);
  const defaults = [
    ...plain.filter((f) => f.repeated).map((f) => `${JSON.stringify(f.name)}: []`),
    ...plain.filter((f) => f.map).map((f) => `${JSON.stringify(f.name)}: {}`),
    ...plain.filter((f) => !f.repeated && !f.map).map((f) => `${JSON.stringify(f.name)}: ${defaultLiteral(f, form, tables)}`),
  ];
  const cases: string[] = [];
  for (const field of fields) {
    const prop = `m[${JSON.stringify(field.name)}]`;
    const resolved = field.resolvedType;
    if (field.map) {
      cases.push(`case ${tagValue(field.id, 2)}: ${mapEntry(field, prop, form, tables)}`);
      continue;
    }
    const wire = wireTypeOf(field, form);
    const read = isMessage(resolved) ? `d${tables.typeIndex(resolved)}(b, lim(b, e), depth + 1)` : readValue(field, field.type, form, tables, 'e');
    if (field.repeated) {
      cases.push(`case ${tagValue(field.id, wire)}: ${prop}.push(${read}); break;`);
      if (packable(field, form)) {
        const packedRead = readValue(field, field.type, form, tables, 'pe');
        cases.push(`case ${tagValue(field.id, 2)}: { const pe = lim(b, e); const a = ${prop}; while (p < pe) a.push(${packedRead}); break; }`);
      }
      continue;
    }
    if (field.partOf === null) {
      cases.push(`case ${tagValue(field.id, wire)}: ${prop} = ${read}; break;`);
      continue;
    }
    // A oneof member: the last one read wins, as the oneof holds one value.
    const oneof = JSON.stringify(field.partOf.name);
    const name = JSON.stringify(field.name);
    cases.push(`case ${tagValue(field.id, wire)}: { const was = m[${oneof}]; if (was !== undefined && was !== ${name}) delete m[was]; ${prop} = ${read}; m[${oneof}] = ${name}; break; }`);
  }
  return `function d${index}(b, e, depth) {
  if (depth > LIMIT) tooDeep();
  const m = { ${defaults.join(', ')} };
  while (p < e) {
    const t = tag(b, e);
    switch (t) {
      ${cases.join('\n      ')}
      default: unknown(b, e, t, depth);
    }
  }
  if (p !== e) truncated();
  return m;
}`;
}
