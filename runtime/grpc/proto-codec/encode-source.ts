/**
 * The encoder of one message type, as JavaScript over ./wire-prelude.ts:
 * `function e<i>(v, depth)` writes a handler's plain object, taking its
 * values as protobufjs's `fromObject` does (numbers from strings, enum names
 * or numbers, bytes from base64 or any array-like, the same TypeErrors for
 * a non-object message or a non-array list), in field number order. Fields
 * with implicit presence holding their zero value are left out, as protoc's
 * runtimes do; fields with presence are written whenever set.
 */
import { isEnum, isMessage, type ReflectedField, type ReflectedType } from './reflection';
import { mapKeyConvert, scalarKind, writeTag, type LongForm } from './scalar-kinds';
import type { CodecTables } from './codec-tables';

/** Room for a tag (at most 5 bytes) and a reserved length byte or scalar. */
const TAG_ROOM = 6;

/** Statements writing value `x` (already read from the object) of `field`'s element type under `id`: a singular field, a list item or a map entry's value. */
function writeValue(field: ReflectedField, id: number, x: string, form: LongForm, tables: CodecTables, context: 'single' | 'item' | 'entry'): string {
  const resolved = field.resolvedType;
  const fullName = JSON.stringify(field.fullName.replace(/^\./, ''));
  if (isMessage(resolved)) {
    const guard = context === 'single' ? `if (typeof ${x} !== 'object') notObject(${fullName});` : `if (${x} === null || typeof ${x} !== 'object') notObject(${fullName});`;
    return `${guard} room(${TAG_ROOM}); ${writeTag(id, 2)} { const at = w++; e${tables.typeIndex(resolved)}(${x}, depth + 1); patch(at); }`;
  }
  if (isEnum(resolved)) {
    const values = tables.enumValues(resolved);
    const convert = `${x} = typeof ${x} === 'number' ? ${x} : ${values}[${x}];`;
    const write = `room(${TAG_ROOM + 10}); ${writeTag(id, 0)} wi32(${x} | 0);`;
    if (context === 'item' || context === 'entry') return `${convert} if (${x} === undefined) ${x} = ${Number(field.typeDefault) || 0}; ${write}`;
    const set = field.hasPresence ? `${x} !== undefined` : `${x} !== undefined && ${x} !== 0`;
    return `${convert} if (${set}) { ${write} }`;
  }
  const kind = scalarKind(field.type, form);
  if (kind === undefined) throw new Error(`no scalar kind for ${field.type}`);
  const write = `room(${TAG_ROOM + kind.maxBytes}); ${writeTag(id, kind.wireType)} ${kind.write(x)}`;
  if (field.type === 'bytes') {
    // fromObject drops a value that is neither a base64 string nor array-like.
    const usable = `(typeof ${x} === 'string' || ${x}.length >= 0)`;
    if (context !== 'single') return write;
    return field.hasPresence ? `if ${usable} { ${write} }` : `if (typeof ${x} === 'string' ? ${x} !== '' : ${x}.length > 0) { ${write} }`;
  }
  const convert = `${x} = ${kind.convert(x, field.fullName.replace(/^\./, ''))};`;
  if (context !== 'single' || field.hasPresence) return `${convert} ${write}`;
  return `${convert} if (${kind.isSet(x)}) { ${write} }`;
}

/** Statements writing a packed list `x` (non-empty, an array). */
function writePacked(field: ReflectedField, x: string, form: LongForm, tables: CodecTables): string {
  const resolved = field.resolvedType;
  let item: string;
  if (isEnum(resolved)) {
    const values = tables.enumValues(resolved);
    item = `y = typeof y === 'number' ? y : ${values}[y]; if (y === undefined) y = ${Number(field.typeDefault) || 0}; room(10); wi32(y | 0);`;
  } else {
    const kind = scalarKind(field.type, form);
    if (kind === undefined) throw new Error(`no scalar kind for ${field.type}`);
    item = `y = ${kind.convert('y', field.fullName.replace(/^\./, ''))}; room(${kind.maxBytes}); ${kind.write('y')}`;
  }
  return `room(${TAG_ROOM}); ${writeTag(field.id, 2)} { const at = w++; for (let i = 0; i < ${x}.length; i++) { let y = ${x}[i]; ${item} } patch(at); }`;
}

function packs(field: ReflectedField, form: LongForm): boolean {
  if (!field.packed || isMessage(field.resolvedType)) return false;
  return isEnum(field.resolvedType) || (scalarKind(field.type, form)?.packable ?? false);
}

function fieldStatements(field: ReflectedField, form: LongForm, tables: CodecTables): string {
  const read = `x = v[${JSON.stringify(field.name)}];`;
  const fullName = JSON.stringify(field.fullName.replace(/^\./, ''));
  if (field.map) {
    const keyType = field.keyType ?? 'string';
    const keyKind = scalarKind(keyType, form);
    if (keyKind === undefined) throw new Error(`map key ${keyType}`);
    const key = `${writeTag(1, keyKind.wireType)} { const kk = ${mapKeyConvert(keyType, 'k')}; ${keyKind.write('kk')} }`;
    return `${read} if (x) { if (typeof x !== 'object') notObject(${fullName});
    const ks = Object.keys(x);
    for (let i = 0; i < ks.length; i++) { const k = ks[i]; let y = x[k];
      room(${TAG_ROOM + 10}); ${writeTag(field.id, 2)} const at = w++; room(${TAG_ROOM + Math.max(keyKind.maxBytes, 1)}); ${key}
      ${writeValue(field, 2, 'y', form, tables, 'entry')} patch(at); } }`;
  }
  if (field.repeated) {
    const body = packs(field, form)
      ? `if (x.length > 0) { ${writePacked(field, 'x', form, tables)} }`
      : `for (let i = 0; i < x.length; i++) { let y = x[i]; ${writeValue(field, field.id, 'y', form, tables, 'item')} }`;
    return `${read} if (x) { if (!Array.isArray(x)) notArray(${fullName}); ${body} }`;
  }
  // Enums take null and unknown names through their lookup; other fields skip null and undefined first.
  if (isEnum(field.resolvedType)) return `${read} ${writeValue(field, field.id, 'x', form, tables, 'single')}`;
  return `${read} if (x != null) { ${writeValue(field, field.id, 'x', form, tables, 'single')} }`;
}

/** The encoder function of `type`, numbered `index` in its group. */
export function encoderSource(type: ReflectedType, index: number, form: LongForm, tables: CodecTables): string {
  const fields = [...type.fieldsArray].map((f) => f.resolve()).sort((a, b) => a.id - b.id);
  return `function e${index}(v, depth) {
  if (depth > LIMIT) tooDeep();
  let x;
  ${fields.map((f) => fieldStatements(f, form, tables)).join('\n  ')}
}`;
}
