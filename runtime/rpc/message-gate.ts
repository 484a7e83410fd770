/**
 * The gate every generated message passes: strict proto3 JSON decoding with
 * @bufbuild/protobuf, then protovalidate's standard rules and CEL
 * expressions, over the descriptors embedded in the generated `x.fw.ts`; and
 * on the way out, the one canonical JSON writer every JSON transport uses.
 * Handlers keep ts-proto's shapes. A request whose validation needs no
 * protobuf-es message is first offered to a one-pass reader of the common
 * JSON spelling (validation/ts-proto-json-reader.ts), which gives what the
 * path below gives or declines. Otherwise canonical JSON, once
 * @bufbuild/protobuf has accepted it, reaches ts-proto through ts-proto's `fromJSON` for the
 * messages it maps exactly, else through a builder compiled from the
 * descriptor (validation/ts-proto-object-builder.ts), else through binary.
 * Replies are written by ts-proto's `toJSON` where it maps them exactly,
 * else by a writer compiled from the descriptor
 * (validation/ts-proto-json-writer.ts), else by @bufbuild/protobuf's
 * `toJson` from ts-proto's binary encoding: on every path the JSON is what
 * protobuf-es writes, to the byte. Binary requests are ts-proto `decode`d,
 * their bytes kept for validation.
 *
 * Loaded on first use (registering a generated service), so an HTTP-only
 * `import 'fw'` never loads protovalidate.
 */
import { fromBinary, fromJson, toBinary, toJson, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf';
import { pathToString } from '@bufbuild/protobuf/reflect';
import type { MessageCodec, MethodDescriptor, ServiceDescriptor } from './descriptor';
import { locateJsonError } from '../validation/json-error-path';
import { hasRules, schemaSetOf, type SchemaSet } from '../validation/schema-registry';
import { tsProtoJsonExact } from '../validation/ts-proto-json';
import { compileTsProtoJsonWriter, type TsProtoJsonWriter } from '../validation/ts-proto-json-writer';
import { compileTsProtoObjectBuilder, type TsProtoObjectBuilder } from '../validation/ts-proto-object-builder';
import { compileTsProtoJsonReader, type TsProtoJsonReader } from '../validation/ts-proto-json-reader';
import { isTsProtoBase } from '../validation/ts-proto-shapes';
import { InvalidMessageError, JSON_MAPPING_RULE, type FieldViolation } from '../validation/violations';
import type { CompiledValidator, CompiledValidators, ValidationEngine } from '../validation/compiled-validator';
import { celOnlyFiles } from '../validation/cel-only-rules';

/** Per-service (or per-gateway) decoding options. */
export interface GateOptions {
  /** Accept and drop JSON members the message does not declare (protobuf's own option name); default false: refused. */
  ignoreUnknownFields?: boolean;
  /** `compiled` (default): fw-gen's compiled validators where the descriptor has them; `protovalidate`: the interpreter for every message. */
  validation?: ValidationEngine;
}

/**
 * What `check` validates a decoded value from: the bytes it came from or its
 * @bufbuild/protobuf twin, kept on the value under a symbol until `check`
 * takes it off again. Not a WeakMap: an entry per request cost more than the
 * validation itself (ephemeron upkeep in every scavenge). Deleting the
 * property added last returns the object to ts-proto's own hidden class, so
 * the handler gets the object it would have got without validation. The
 * record names its owner: a copy (`{ ...request, name: '' }` in a
 * middleware) carries the symbol along but is validated from its own content.
 */
const ORIGIN = Symbol('fw.validationOrigin');

interface Origin {
  readonly owner: object;
  readonly source: Message | Uint8Array;
}

type WithOrigin = { [ORIGIN]?: Origin };

function keepOrigin(value: unknown, source: Message | Uint8Array): void {
  if (value !== null && typeof value === 'object') (value as WithOrigin)[ORIGIN] = { owner: value, source };
}

function takeOrigin(value: unknown): Message | Uint8Array | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const origin = (value as WithOrigin)[ORIGIN];
  if (origin === undefined) return undefined;
  delete (value as WithOrigin)[ORIGIN];
  return origin.owner === value ? origin.source : undefined;
}

/** Decoding and validation of one message type, in one direction. */
export class MessageGate<T = unknown> {
  /** True when the message (or one it contains) has buf.validate rules. */
  readonly ruled: boolean;
  readonly #set: SchemaSet;
  readonly #schema: DescMessage;
  readonly #codec: MessageCodec<T>;
  readonly #ignoreUnknownFields: boolean;
  readonly #tsProtoJsonExact: boolean;
  readonly #writeJson: TsProtoJsonWriter | undefined;
  readonly #buildValue: TsProtoObjectBuilder | undefined;
  /** The one-pass reader of common JSON, where the value needs no protobuf-es twin for validation. */
  readonly #readJson: TsProtoJsonReader | undefined;
  readonly #direction: 'request' | 'response';
  /** fw-gen's validator of this type; when set, protovalidate checks at most the CEL rules (`#cel`). */
  readonly #compiled: CompiledValidator<T> | undefined;
  /** The type's CEL rules alone (validation/cel-only-rules.ts), for a compiled type that has some. */
  readonly #cel: { readonly set: SchemaSet; readonly schema: DescMessage } | undefined;

  constructor(
    set: SchemaSet,
    schema: DescMessage,
    codec: MessageCodec<T>,
    options: GateOptions,
    direction: 'request' | 'response',
    compiled?: CompiledValidators[string],
    files?: readonly Uint8Array[],
  ) {
    this.#set = set;
    this.#schema = schema;
    this.#codec = codec;
    this.#ignoreUnknownFields = options.ignoreUnknownFields === true;
    this.#tsProtoJsonExact = tsProtoJsonExact(schema);
    // The compiled writer, builder, reader and validators all map ts-proto's objects only.
    const tsProtoShaped = decodesToTsProto(schema, codec);
    const tsProto = !this.#tsProtoJsonExact && tsProtoShaped;
    this.#writeJson = tsProto ? compileTsProtoJsonWriter(schema, set.typeRegistry) : undefined;
    this.#buildValue = tsProto ? compileTsProtoObjectBuilder(schema) : undefined;
    this.#direction = direction;
    this.ruled = hasRules(schema);
    const useCompiled = compiled !== undefined && this.ruled && options.validation !== 'protovalidate' && tsProtoShaped;
    const validate = typeof compiled === 'function' ? compiled : compiled?.validate;
    const celSet = useCompiled && typeof compiled === 'object' && files !== undefined ? schemaSetOf(celOnlyFiles(files)) : undefined;
    const celSchema = celSet?.registry.getMessage(schema.typeName);
    // A CEL-ruled type whose rules cannot be split keeps the interpreter for everything.
    const split = typeof compiled !== 'object' || (celSet !== undefined && celSchema !== undefined);
    this.#compiled = useCompiled && split ? (validate as CompiledValidator<T>) : undefined;
    this.#cel = this.#compiled !== undefined && celSet !== undefined && celSchema !== undefined ? { set: celSet, schema: celSchema } : undefined;
    const needsTwin = this.ruled && (this.#compiled === undefined || this.#cel !== undefined);
    this.#readJson = !needsTwin && tsProtoShaped ? compileTsProtoJsonReader(schema) : undefined;
  }

  /**
   * Canonical proto3 JSON → the handler's value. Wrong types, out-of-range
   * numbers, unknown enum names or fields, malformed WKTs and two members of
   * one oneof throw an InvalidMessageError naming the field path; nothing is
   * coerced. Rules are checked later, by `check`.
   */
  fromJson(json: unknown): T {
    const input = json ?? {};
    if (this.#readJson !== undefined) {
      try {
        return this.#readJson(input) as T;
      } catch {
        // Not the common spelling (or not valid at all): protobuf-es reads it, or says why not.
      }
    }
    const options = { ignoreUnknownFields: this.#ignoreUnknownFields, registry: this.#set.typeRegistry };
    let message: Message;
    try {
      message = fromJson(this.#schema, input as never, options);
    } catch (error) {
      throw new InvalidMessageError([locateJsonError(this.#schema, input, error, options)], this.#direction);
    }
    const value = this.#tsProtoJsonExact ? this.#codec.fromJSON(input) : this.#tsProtoValue(message);
    if (this.ruled && (this.#compiled === undefined || this.#cel !== undefined)) keepOrigin(value, message);
    return value;
  }

  /** ts-proto's object of a message protobuf-es read: built directly where the builder maps it, else through binary. */
  #tsProtoValue(message: Message): T {
    if (this.#buildValue !== undefined) {
      try {
        return this.#buildValue(message) as T;
      } catch {
        // A shape the builder does not expect: binary decides.
      }
    }
    return this.#codec.decode(toBinary(this.#schema, message));
  }

  /**
   * The handler's value → canonical proto3 JSON, exactly as @bufbuild/protobuf
   * writes it: 64-bit integers as strings, well-known types in their JSON
   * forms (`Any` resolved with `@type`), enums as names (unknown ones as
   * numbers), bytes as base64, NaN and Infinity as strings. A value that does
   * not encode (a wrong type in a field) throws.
   */
  toJson(value: T): unknown {
    if (this.#tsProtoJsonExact) return this.#codec.toJSON(value);
    if (this.#writeJson !== undefined) {
      try {
        return this.#writeJson(value);
      } catch {
        // A value the compiled writer does not map: protobuf-es writes it, or says why not.
      }
    }
    return toJson(this.#schema, fromBinary(this.#schema, this.#codec.encode(value)), { registry: this.#set.typeRegistry });
  }

  /** Binary → the handler's value (ts-proto decode); malformed bytes throw an InvalidMessageError. */
  fromBinary(bytes: Uint8Array): T {
    let value: T;
    try {
      value = this.#codec.decode(bytes);
    } catch (error) {
      throw new InvalidMessageError([{ field: '', rule: 'protobuf', message: `malformed protobuf: ${(error as Error).message}` }], this.#direction);
    }
    if (this.ruled && (this.#compiled === undefined || this.#cel !== undefined)) keepOrigin(value, bytes);
    return value;
  }

  /** The rules `value` breaks, or undefined. A rule that cannot be evaluated (bad CEL) throws. */
  violations(value: T): FieldViolation[] | undefined {
    if (!this.ruled) return undefined;
    if (this.#compiled !== undefined) return this.#compiledViolations(value);
    const found = this.#interpret(this.#set, this.#schema, value, false);
    return found.length === 0 ? undefined : found;
  }

  /**
   * protovalidate's violations of `value`, read from its origin (or its
   * encoding) under `schema` of `set`; `skipRequired` drops the `required`
   * ones (the compiled part reports those). A rule that cannot be
   * evaluated (bad CEL) throws.
   */
  #interpret(set: SchemaSet, schema: DescMessage, value: T, skipRequired: boolean): FieldViolation[] {
    const origin = takeOrigin(value);
    let message: Message;
    if (origin === undefined) message = fromBinary(schema, this.#codec.encode(value));
    else if (origin instanceof Uint8Array) message = fromBinary(schema, origin);
    else message = origin;
    const result = set.validator.validate(schema, message as never);
    if (result.kind === 'valid') return [];
    if (result.kind === 'error') throw result.error;
    const out: FieldViolation[] = [];
    for (const v of result.violations) {
      const first = v.rule[0];
      if (skipRequired && first !== undefined && first.kind === 'field' && first.name === 'required') continue;
      out.push({ field: pathToString(v.field), rule: v.ruleId, message: v.message });
    }
    return out;
  }

  /**
   * The compiled validator's verdict. A request is checked as the handler
   * will get it; a response, or a value of another shape than ts-proto's
   * (built by hand), is checked as it will be encoded: after a round trip
   * through the codec.
   */
  #compiledViolations(value: T): FieldViolation[] | undefined {
    const validate = this.#compiled as CompiledValidator<T>;
    const out: FieldViolation[] = [];
    let checked = false;
    if (this.#direction === 'request') {
      try {
        validate(value, '', out);
        checked = true;
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        out.length = 0;
      }
    }
    if (!checked) validate(this.#codec.decode(this.#codec.encode(value)), '', out);
    // The CEL rules alone, over the CEL-only descriptors.
    if (this.#cel !== undefined) out.push(...this.#interpret(this.#cel.set, this.#cel.schema, value, true));
    return out.length === 0 ? undefined : out;
  }



  /** Throws an InvalidMessageError listing every violation of `value`. */
  check(value: T): void {
    if (!this.ruled) return;
    const found = this.violations(value);
    if (found !== undefined) throw new InvalidMessageError(found, this.#direction);
  }

  /**
   * A path or query parameter (`a.b`, always a string) as its field's JSON
   * wants it: `true`/`false` for bools, a one-element list for repeated
   * fields; everything else stays a string (the JSON mapping accepts numbers
   * and enum names as strings).
   */
  paramValue(path: string, raw: string): unknown {
    const field = fieldAt(this.#schema, path);
    if (field === undefined) return raw;
    if (field.fieldKind === 'list') return [raw];
    if (field.fieldKind === 'scalar' && field.scalar === 8 /* BOOL */) {
      if (raw === 'true') return true;
      if (raw === 'false') return false;
    }
    return raw;
  }
}

/** True when `codec` decodes to ts-proto's objects (checked on its empty message), which the compiled writer and builder map. */
function decodesToTsProto<T>(schema: DescMessage, codec: MessageCodec<T>): boolean {
  try {
    return isTsProtoBase(schema, codec.decode(new Uint8Array(0)));
  } catch {
    return false;
  }
}

function fieldAt(schema: DescMessage, dotted: string): DescField | undefined {
  let message: DescMessage | undefined = schema;
  let field: DescField | undefined;
  for (const name of dotted.split('.')) {
    if (message === undefined) return undefined;
    field = message.fields.find((f) => f.name === name || f.jsonName === name);
    if (field === undefined) return undefined;
    message = field.message;
  }
  return field;
}

/** Request and response gates of one method. */
export interface MethodGates {
  readonly request: MessageGate;
  readonly response: MessageGate;
}

/**
 * Gates of `method`, or undefined when its descriptor carries no usable
 * FileDescriptorProtos (a hand-written descriptor): such methods keep the
 * codec's own JSON reading and are not validated.
 */
export function methodGates(service: ServiceDescriptor, method: MethodDescriptor, options: GateOptions = {}): MethodGates | undefined {
  const files = service.fileDescriptorProtos;
  if (files === undefined || files.length === 0) return undefined;
  const set = schemaSetOf(files);
  if (set === undefined) return undefined;
  const request = set.registry.getMessage(method.requestType);
  const response = set.registry.getMessage(method.responseType);
  if (request === undefined || response === undefined) return undefined;
  const compiled = service.validators ?? {};
  return {
    request: new MessageGate(set, request, method.requestCodec, options, 'request', compiled[method.requestType], files),
    response: new MessageGate(set, response, method.responseCodec, options, 'response', compiled[method.responseType], files),
  };
}

export { JSON_MAPPING_RULE };
