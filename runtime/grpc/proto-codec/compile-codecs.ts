/**
 * Compiled binary codecs for proto-loaded services: for the message types a
 * service uses, straight-line decoders and encoders generated once when the
 * proto is loaded, in place of @grpc/proto-loader's `toObject(decode())` and
 * `encode(fromObject())`, which walk each message twice and, on a small
 * unary call, cost about a tenth of fw's whole gRPC path. They give handlers
 * the same objects and take the same values (test/grpc/proto-codec-differential.test.ts
 * checks them against proto-loader on seeded random messages).
 *
 * A message type (with everything it reaches) is compiled only when every
 * part of it is one the compiled code reproduces exactly; otherwise it keeps
 * proto-loader's codec: loader options other than fw's shapes, proto2
 * `required`, groups and delimited fields, extensions, 64-bit map keys,
 * non-empty bytes defaults, and google.protobuf.Any (protobufjs converts it
 * specially).
 */
import type { Options } from '@grpc/proto-loader';
import { CodecTables } from './codec-tables';
import { decoderSource } from './decode-source';
import { registerFramedEncoder } from './framed-encoders';
import { encoderSource } from './encode-source';
import { isEnum, isMessage, type ReflectedType } from './reflection';
import { MAP_KEY_TYPES, type LongForm } from './scalar-kinds';
import { WIRE_PRELUDE } from './wire-prelude';

/** One message type's compiled pair. */
export interface CompiledCodec {
  readonly decode: (bytes: Buffer) => unknown;
  readonly encode: (value: unknown) => Buffer;
  /** `encode` with the 5-byte gRPC message prefix (uncompressed) in front, in one buffer. */
  readonly encodeFramed: (value: unknown) => Buffer;
}


/** The `longs` form the loader options ask for, or undefined when the options are not ones compiled codecs reproduce. */
export function compiledLongForm(options: Options): LongForm | undefined {
  if (options.enums !== String || options.defaults !== true || options.oneofs !== true) return undefined;
  if (options.json === true || options.bytes !== undefined) return undefined;
  if (options.longs === BigInt) return 'bigint';
  if (options.longs === String) return 'string';
  if (options.longs === Number) return 'number';
  return undefined;
}

/** Why `type` (or a type it reaches) keeps proto-loader's codec; undefined when it compiles. */
export function unsupportedPart(type: ReflectedType, seen: Set<ReflectedType> = new Set()): string | undefined {
  if (seen.has(type)) return undefined;
  seen.add(type);
  if (type.fullName === '.google.protobuf.Any') return 'google.protobuf.Any';
  for (const raw of type.fieldsArray) {
    const field = raw.resolve();
    const where = `${type.fullName.slice(1)}.${field.name}`;
    if (field.required) return `${where} is required`;
    if (field.delimited) return `${where} is delimited`;
    if (field.declaringField != null || field.extensionField != null) return `${where} is an extension`;
    if (field.map && !MAP_KEY_TYPES.has(field.keyType ?? '')) return `${where} has ${field.keyType ?? 'unknown'} keys`;
    if (field.type === 'bytes' && field.typeDefault instanceof Uint8Array && field.typeDefault.length > 0) return `${where} has a bytes default`;
    const resolved = field.resolvedType;
    if (isMessage(resolved)) {
      const inner = unsupportedPart(resolved, seen);
      if (inner !== undefined) return inner;
    } else if (resolved !== null && !isEnum(resolved)) return `${where} has an unknown type`;
  }
  return undefined;
}

/**
 * Codecs for `types` (each already checked with `unsupportedPart`), generated
 * as one function body so they share the reader and writer state.
 */
export function compileCodecs(types: readonly ReflectedType[], form: LongForm): CompiledCodec[] {
  const tables = new CodecTables();
  const entries = types.map((type) => tables.typeIndex(type));
  const functions: string[] = [];
  // Compiling a type may add the types it reaches: the list grows as it is walked.
  for (let index = 0; index < tables.types.length; index += 1) {
    const type = tables.types[index] as ReflectedType;
    functions.push(decoderSource(type, index, form, tables), encoderSource(type, index, form, tables));
  }
  const exports = entries.map((index) => {
    const type = tables.types[index] as ReflectedType;
    const name = JSON.stringify(type.fullName.slice(1));
    const empty = type.fieldsArray.length === 0;
    return `{ decode: (bytes) => decodeWith(d${index}, bytes), encode: (value) => encodeWith(e${index}, value, ${name}, 0, ${empty}), encodeFramed: (value) => encodeWith(e${index}, value, ${name}, 5, ${empty}) }`;
  });
  const source = `${WIRE_PRELUDE}\n${tables.declarations()}\n${functions.join('\n')}\nreturn [${exports.join(', ')}];`;
  // The generated text comes from the loaded proto's names and numbers only, each quoted or numeric.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const build = new Function('Buffer', source) as (buffer: typeof Buffer) => CompiledCodec[];
  const codecs = build(Buffer);
  for (const codec of codecs) registerFramedEncoder(codec.encode, codec.encodeFramed);
  return codecs;
}
