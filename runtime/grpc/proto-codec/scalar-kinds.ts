/**
 * Per scalar type of protobuf: its wire type and the JavaScript (over
 * ./wire-prelude.ts) that reads it, converts a handler's value to it as
 * protobufjs's `fromObject` does, and writes it. Values come out as
 * @grpc/proto-loader gives them under fw's options (64-bit integers by the
 * `longs` option, bytes as Buffers).
 */

/** How 64-bit integers reach handlers: proto-loader's `longs` option. */
export type LongForm = 'bigint' | 'string' | 'number';

export interface ScalarKind {
  /** 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit. */
  readonly wireType: 0 | 1 | 2 | 5;
  /** May a repeated field of this type be packed? */
  readonly packable: boolean;
  /** Expression reading one value, with `end` the name of the end variable. */
  read(end: string): string;
  /** Expression turning a handler's value `x` into what `write` takes (fromObject's coercion). */
  convert(x: string, field: string): string;
  /** Expression true when a converted value is not the type's zero value (implicit presence writes only those). */
  isSet(x: string): string;
  /** Statements writing a converted value, room already made for `maxBytes`. */
  write(x: string): string;
  /** Largest encoding in bytes (strings and bytes make their own room: 0). */
  readonly maxBytes: number;
}

const long = (form: LongForm, read: string): string => (form === 'bigint' ? read : form === 'string' ? `String(${read})` : `Number(${read})`);

function kinds(form: LongForm): Record<string, ScalarKind> {
  const int64 = (read: string, unsigned: boolean, write: (x: string) => string, wireType: 0 | 1, maxBytes: number): ScalarKind => ({
    wireType,
    packable: true,
    read: (end) => long(form, read.replace('END', end)),
    convert: (x, field) => `toLong(${x}, ${unsigned}, ${JSON.stringify(field)})`,
    isSet: (x) => `${x} !== 0n`,
    write,
    maxBytes,
  });
  return {
    double: { wireType: 1, packable: true, read: (e) => `f64(b, ${e})`, convert: (x) => `(typeof ${x} === 'number' ? ${x} : Number(${x}))`, isSet: (x) => `(${x} !== 0 || 1 / ${x} < 0)`, write: (x) => `o.writeDoubleLE(${x}, w); w += 8;`, maxBytes: 8 },
    float: { wireType: 5, packable: true, read: (e) => `f32(b, ${e})`, convert: (x) => `(typeof ${x} === 'number' ? ${x} : Number(${x}))`, isSet: (x) => `(${x} !== 0 || 1 / ${x} < 0)`, write: (x) => `o.writeFloatLE(${x}, w); w += 4;`, maxBytes: 4 },
    int32: { wireType: 0, packable: true, read: (e) => `(u32(b, ${e}) | 0)`, convert: (x) => `(${x} | 0)`, isSet: (x) => `${x} !== 0`, write: (x) => `wi32(${x});`, maxBytes: 10 },
    sint32: { wireType: 0, packable: true, read: (e) => `sint32Of(u32(b, ${e}))`, convert: (x) => `(${x} | 0)`, isSet: (x) => `${x} !== 0`, write: (x) => `wv(((${x} << 1) ^ (${x} >> 31)) >>> 0);`, maxBytes: 5 },
    sfixed32: { wireType: 5, packable: true, read: (e) => `(fx32(b, ${e}) | 0)`, convert: (x) => `(${x} | 0)`, isSet: (x) => `${x} !== 0`, write: (x) => `wfx32(${x});`, maxBytes: 4 },
    uint32: { wireType: 0, packable: true, read: (e) => `u32(b, ${e})`, convert: (x) => `(${x} >>> 0)`, isSet: (x) => `${x} !== 0`, write: (x) => `wv(${x});`, maxBytes: 5 },
    fixed32: { wireType: 5, packable: true, read: (e) => `fx32(b, ${e})`, convert: (x) => `(${x} >>> 0)`, isSet: (x) => `${x} !== 0`, write: (x) => `wfx32(${x});`, maxBytes: 4 },
    int64: int64('i64Of(v64(b, END))', false, (x) => `wbig(${x});`, 0, 10),
    uint64: int64('u64Of(v64(b, END))', true, (x) => `wbig(${x});`, 0, 10),
    sint64: int64('s64Of(v64(b, END))', false, (x) => `wbig(zz64(${x}));`, 0, 10),
    fixed64: int64('u64Of(fx64(b, END))', true, (x) => `wfx64(${x});`, 1, 8),
    sfixed64: int64('i64Of(fx64(b, END))', false, (x) => `wfx64(${x});`, 1, 8),
    bool: { wireType: 0, packable: true, read: (e) => `boolOf(b, ${e})`, convert: (x) => `(${x} ? 1 : 0)`, isSet: (x) => `${x} !== 0`, write: (x) => `o[w++] = ${x};`, maxBytes: 1 },
    string: { wireType: 2, packable: false, read: (e) => `str(b, ${e})`, convert: (x) => `(typeof ${x} === 'string' ? ${x} : String(${x}))`, isSet: (x) => `${x} !== ''`, write: (x) => `ws(${x});`, maxBytes: 0 },
    // fromObject keeps a string (base64) or anything with a length; the writer copies it.
    bytes: { wireType: 2, packable: false, read: (e) => `bytes(b, ${e})`, convert: (x) => x, isSet: (x) => `${x}.length > 0`, write: (x) => `wbytes(${x});`, maxBytes: 0 },
  };
}

const byForm = new Map<LongForm, Record<string, ScalarKind>>();

/** The kind of scalar `type` (`int32`, `string`, …), or undefined for enums and messages. */
export function scalarKind(type: string, form: LongForm): ScalarKind | undefined {
  let table = byForm.get(form);
  if (table === undefined) byForm.set(form, (table = kinds(form)));
  return Object.prototype.hasOwnProperty.call(table, type) ? table[type] : undefined;
}

/** Map key types the compiled codecs handle (64-bit keys keep proto-loader's codec). */
export const MAP_KEY_TYPES: ReadonlySet<string> = new Set(['string', 'int32', 'sint32', 'sfixed32', 'uint32', 'fixed32', 'bool']);

/** Expression turning a map key (an object key, always a string) into what the key type's `write` takes. */
export function mapKeyConvert(type: string, k: string): string {
  if (type === 'string') return k;
  if (type === 'bool') return `(${k} === 'true' ? 1 : 0)`;
  if (type === 'uint32' || type === 'fixed32') return `(+${k} >>> 0)`;
  return `(+${k} | 0)`;
}

/** The bytes of a field's tag, as a varint. */
export function tagBytes(id: number, wireType: number): number[] {
  let v = id * 8 + wireType;
  const out: number[] = [];
  while (v > 127) {
    out.push((v % 128) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** Statements writing a tag: one `o[w++] = n;` per byte. */
export function writeTag(id: number, wireType: number): string {
  return tagBytes(id, wireType)
    .map((byte) => `o[w++] = ${byte};`)
    .join(' ');
}

/** The tag as the decoder's switch sees it (the varint's value). */
export function tagValue(id: number, wireType: number): number {
  return id * 8 + wireType;
}
