/**
 * The parts of protobufjs's reflection (the types behind @grpc/proto-loader)
 * that the compiled codecs read, written as shapes so fw's public types never
 * name protobufjs, which is only there when proto-loader is.
 */

/** A message type: `.bench.EchoRequest` and its fields. */
export interface ReflectedType {
  readonly fullName: string;
  readonly fieldsArray: readonly ReflectedField[];
}

/** An enum: numbers to names (the first name of a number when aliased). */
export interface ReflectedEnum {
  readonly fullName: string;
  readonly valuesById: Readonly<Record<number, string>>;
  readonly values: Readonly<Record<string, number>>;
}

/** A oneof, or the synthetic one of a proto3 `optional` field. */
export interface ReflectedOneOf {
  readonly name: string;
}

/** A 64-bit default as protobufjs holds it. */
export interface LongBits {
  readonly low: number;
  readonly high: number;
  readonly unsigned: boolean;
}

/** One field, resolved. */
export interface ReflectedField {
  /** The property name handlers see (camelCase unless `keepCase`). */
  readonly name: string;
  readonly fullName: string;
  readonly id: number;
  /** `int32`, `string`, … or the referenced type's name. */
  readonly type: string;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly keyType?: string;
  readonly resolvedType: ReflectedType | ReflectedEnum | null;
  readonly partOf: ReflectedOneOf | null;
  readonly required: boolean;
  readonly delimited: boolean;
  readonly packed: boolean;
  readonly hasPresence: boolean;
  readonly typeDefault: unknown;
  readonly declaringField?: unknown;
  readonly extensionField?: unknown;
  resolve(): ReflectedField;
}

/** A service and its methods' resolved message types. */
export interface ReflectedService {
  readonly methodsArray: readonly { readonly name: string; readonly resolvedRequestType: ReflectedType | null; readonly resolvedResponseType: ReflectedType | null }[];
}

/** What `lookup` answers for a name. */
export interface ReflectedRoot {
  lookup(path: string): unknown;
}

export function isEnum(value: ReflectedType | ReflectedEnum | null): value is ReflectedEnum {
  return value !== null && 'valuesById' in value;
}

export function isMessage(value: ReflectedType | ReflectedEnum | null): value is ReflectedType {
  return value !== null && 'fieldsArray' in value;
}
