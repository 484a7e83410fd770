/**
 * The text of one generated function set (a type's JSON reader or writer
 * and every message type it reaches), with the values its code refers to.
 * Values are passed in as parameters `k0`, `k1`, …, never spelled into the
 * text: only names fw quotes with JSON.stringify reach it, so no string of
 * the proto becomes code.
 */
import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { EDITION_PROTO3, ownSites, WRAPPERS } from './ts-proto-shapes';

export class GeneratedSource {
  readonly #values: unknown[] = [];
  readonly #known = new Map<unknown, string>();
  #names = 0;

  /** The parameter name under which the code sees `value` (one per distinct value). */
  value(value: unknown): string {
    const known = this.#known.get(value);
    if (known !== undefined) return known;
    const name = `k${this.#values.length}`;
    this.#values.push(value);
    this.#known.set(value, name);
    return name;
  }

  /** A fresh local variable name. */
  local(prefix = 'v'): string {
    return `${prefix}${this.#names++}`;
  }

  /** `body` (ending in a `return`) compiled with the values bound. */
  compile<T>(body: string): T {
    return ownSites<T>(
      this.#values.map((_, i) => `k${i}`),
      body,
      ...this.#values,
    );
  }
}

/** A string as a JavaScript literal. */
export const literal = (text: string): string => JSON.stringify(text);

/**
 * The message types of one generated function set: each gets a function
 * named `<prefix><n>` the first time it is asked for, and is then compiled
 * in turn (a recursive type calls its own name).
 */
export class GeneratedFunctions {
  readonly source = new GeneratedSource();
  readonly #names = new Map<DescMessage, string>();
  readonly #pending: DescMessage[] = [];
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** The name of `desc`'s function. */
  nameOf(desc: DescMessage): string {
    let name = this.#names.get(desc);
    if (name === undefined) {
      name = `${this.#prefix}${this.#names.size}`;
      this.#names.set(desc, name);
      this.#pending.push(desc);
    }
    return name;
  }

  /**
   * `top`'s function and every one it reaches, each made by `text` (undefined:
   * the type is not compiled, nor then is `top`), compiled together.
   */
  compile<T>(top: DescMessage, text: (desc: DescMessage, name: string) => string | undefined): T | undefined {
    const name = this.nameOf(top);
    const functions: string[] = [];
    for (let i = 0; i < this.#pending.length; i++) {
      const desc = this.#pending[i] as DescMessage;
      const made = text(desc, this.#names.get(desc) as string);
      if (made === undefined) return undefined;
      functions.push(made);
    }
    return this.source.compile<T>(`${functions.join('\n')}\nreturn ${name};`);
  }
}

/** What one value of a field is: a scalar, an enum or a message; undefined for `jstype = JS_STRING` scalars. */
export type FieldValue = { readonly kind: 'scalar'; readonly scalar: ScalarType } | { readonly kind: 'enum'; readonly desc: DescEnum } | { readonly kind: 'message'; readonly desc: DescMessage };

export function fieldValue(field: DescField): FieldValue | undefined {
  switch (field.fieldKind) {
    case 'scalar':
      return field.longAsString ? undefined : { kind: 'scalar', scalar: field.scalar };
    case 'enum':
      return { kind: 'enum', desc: field.enum };
    case 'message':
      return { kind: 'message', desc: field.message };
    case 'list':
      if (field.listKind === 'scalar') return field.longAsString ? undefined : { kind: 'scalar', scalar: field.scalar };
      return field.listKind === 'enum' ? { kind: 'enum', desc: field.enum } : { kind: 'message', desc: field.message };
    case 'map':
      if (field.mapKind === 'scalar') return { kind: 'scalar', scalar: field.scalar };
      return field.mapKind === 'enum' ? { kind: 'enum', desc: field.enum } : { kind: 'message', desc: field.message };
  }
}

/** The well-known types with a JSON form of their own. */
export type WellKnownJson = 'Timestamp' | 'Duration' | 'FieldMask' | 'Any' | 'Struct' | 'Value' | 'ListValue';

/**
 * How a message type's values are mapped: a well-known type's JSON form, a
 * wrapper's scalar (ts-proto unwraps it, and its JSON is its value's), or
 * the type's own function (`message`: a proto3 type, Empty included);
 * undefined for the rest (proto2, Editions, other google.protobuf types).
 */
export function messageMapping(desc: DescMessage): WellKnownJson | { readonly wrapper: ScalarType } | 'message' | undefined {
  if (desc.typeName.startsWith('google.protobuf.') && desc.typeName !== 'google.protobuf.Empty') {
    const name = desc.typeName.slice('google.protobuf.'.length);
    if (WELL_KNOWN_JSON.has(name)) return name as WellKnownJson;
    const value = desc.fields[0];
    return WRAPPERS.has(desc.typeName) && value !== undefined && value.fieldKind === 'scalar' ? { wrapper: value.scalar } : undefined;
  }
  return desc.file.edition === EDITION_PROTO3 ? 'message' : undefined;
}

const WELL_KNOWN_JSON: ReadonlySet<string> = new Set<WellKnownJson>(['Timestamp', 'Duration', 'FieldMask', 'Any', 'Struct', 'Value', 'ListValue']);

/** Scalars by how their JSON is read and written. */
export type ScalarGroup = 'int32' | 'uint32' | 'bool' | 'int64' | 'uint64' | 'float' | 'double' | 'string' | 'bytes';

export function scalarGroup(scalar: ScalarType): ScalarGroup {
  switch (scalar) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return 'int32';
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return 'uint32';
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return 'int64';
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return 'uint64';
    case ScalarType.FLOAT:
      return 'float';
    case ScalarType.DOUBLE:
      return 'double';
    case ScalarType.BOOL:
      return 'bool';
    case ScalarType.STRING:
      return 'string';
    default:
      return 'bytes';
  }
}

/**
 * Statements for the scalars whose JSON is the value itself, in either
 * direction (32-bit integers as numbers, bool): check `from`'s type, put it
 * into `to`, or call `refuse`. Undefined for the other scalars.
 */
export function sameValueScalarCode(group: ScalarGroup, from: string, to: string, refuse: string): string | undefined {
  switch (group) {
    case 'int32':
      return `if (typeof ${from} !== "number" || (${from} | 0) !== ${from}) ${refuse}(); ${to} = ${from} | 0;`;
    case 'uint32':
      return `if (typeof ${from} !== "number" || ${from} >>> 0 !== ${from}) ${refuse}(); ${to} = ${from} >>> 0;`;
    case 'bool':
      return `if (typeof ${from} !== "boolean") ${refuse}(); ${to} = ${from};`;
    default:
      return undefined;
  }
}
