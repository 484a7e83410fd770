/**
 * The @bufbuild/protobuf registry of a generated service, built at run time
 * from the FileDescriptorProtos its `x.fw.ts` embeds, with one protovalidate
 * validator per registry. Built once per descriptor file set, on the first
 * registration that needs it.
 */
import { create, createFileRegistry, createRegistry, fromBinary, type DescMessage, type FileRegistry, type Registry } from '@bufbuild/protobuf';
import {
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
} from '@bufbuild/protobuf/wkt';
import { createValidator, type Validator } from '@bufbuild/protovalidate';

/** A registry and its validator. */
export interface SchemaSet {
  readonly registry: FileRegistry;
  /** `registry` plus the well-known types: what `Any` values are resolved in, in JSON. */
  readonly typeRegistry: Registry;
  readonly validator: Validator;
}

/** The well-known types an `Any` may hold even when the service's files do not import them. */
const WELL_KNOWN_FILES = [
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
];

const sets = new WeakMap<readonly Uint8Array[], SchemaSet | null>();

/**
 * The registry of `fileDescriptorProtos` (cached per array), or undefined
 * when they do not form a complete, resolvable set (a hand-made descriptor):
 * such a service is served as before, without strict decoding or rules.
 */
export function schemaSetOf(fileDescriptorProtos: readonly Uint8Array[]): SchemaSet | undefined {
  let set = sets.get(fileDescriptorProtos);
  if (set === undefined) {
    try {
      const files = fileDescriptorProtos.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
      set = { registry, typeRegistry: createRegistry(...WELL_KNOWN_FILES, registry), validator: createValidator({ registry }) };
    } catch {
      set = null;
    }
    sets.set(fileDescriptorProtos, set);
  }
  return set ?? undefined;
}

/** Extension number of `buf.validate.field`, `.message` and `.oneof` on their options messages. */
const RULES_EXTENSION = 1159;

function carriesRules(options: { $unknown?: { no: number }[] } | undefined): boolean {
  return options?.$unknown?.some((u) => u.no === RULES_EXTENSION) === true;
}

const ruled = new WeakMap<DescMessage, boolean>();

/**
 * True when `message` or any message reachable from it has buf.validate
 * rules. Messages without any skip protovalidate altogether, so a rule-free
 * method pays nothing for validation.
 */
export function hasRules(message: DescMessage, seen = new Set<DescMessage>()): boolean {
  const known = ruled.get(message);
  if (known !== undefined) return known;
  if (seen.has(message)) return false;
  seen.add(message);
  let found = carriesRules(message.proto.options);
  for (const oneof of message.oneofs) found ||= carriesRules(oneof.proto.options);
  for (const field of message.fields) {
    if (found) break;
    found = carriesRules(field.proto.options);
    if (!found && field.message !== undefined) found = hasRules(field.message, seen);
  }
  ruled.set(message, found);
  return found;
}
