/**
 * The descriptors protovalidate checks a compiled message's CEL rules with:
 * the service's FileDescriptorProtos with every rule the compiled validator
 * already checks taken out. What stays on a field is its `cel` rules, its
 * rules message where that carries predefined (extension) rules, and the
 * `required` and `ignore` that decide whether those run at all; on a
 * message, its `cel` rules. Oneof and message-oneof rules go (a field a
 * message-oneof rule names keeps the `ignore: IGNORE_IF_ZERO_VALUE` that
 * rule implied). So protovalidate evaluates CEL for just those fields.
 */
import { clearExtension, create, fromBinary, getExtension, hasExtension, isFieldSet, setExtension, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type DescriptorProto } from '@bufbuild/protobuf/wkt';
import {
  field as fieldRules,
  FieldRulesSchema,
  Ignore,
  message as messageRules,
  oneof as oneofRules,
  type FieldRules,
} from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';

const cache = new WeakMap<readonly Uint8Array[], readonly Uint8Array[]>();

/** `files` with only what protovalidate must still check (cached per list). */
export function celOnlyFiles(files: readonly Uint8Array[]): readonly Uint8Array[] {
  let out = cache.get(files);
  if (out === undefined) {
    out = files.map((bytes) => {
      const file = fromBinary(FileDescriptorProtoSchema, bytes);
      for (const message of file.messageType) strip(message);
      return toBinary(FileDescriptorProtoSchema, file);
    });
    cache.set(files, out);
  }
  return out;
}

function hasPredefined(rules: FieldRules): boolean {
  const value = rules.type.value as { $unknown?: unknown[] } | undefined;
  return value?.$unknown !== undefined && value.$unknown.length > 0;
}

function strip(message: DescriptorProto): void {
  const oneofFields = new Set<string>();
  if (message.options !== undefined && hasExtension(message.options, messageRules)) {
    const rules = getExtension(message.options, messageRules);
    for (const rule of rules.oneof) for (const name of rule.fields) oneofFields.add(name);
    setExtension(message.options, messageRules, { ...rules, oneof: [] });
  }
  for (const oneof of message.oneofDecl) if (oneof.options !== undefined) clearExtension(oneof.options, oneofRules);
  for (const field of message.field) {
    const options = field.options;
    const had = options !== undefined && hasExtension(options, fieldRules);
    const rules = had ? getExtension(options, fieldRules) : undefined;
    const kept = create(FieldRulesSchema, { cel: rules?.cel ?? [], celExpression: rules?.celExpression ?? [] });
    if (rules !== undefined) {
      if (rules.required) kept.required = true;
      if (isFieldSet(rules, FieldRulesSchema.field.ignore)) kept.ignore = rules.ignore;
      if (hasPredefined(rules)) kept.type = rules.type;
    }
    if (oneofFields.has(field.name) && (rules === undefined || !isFieldSet(rules, FieldRulesSchema.field.ignore))) kept.ignore = Ignore.IF_ZERO_VALUE;
    // A field without rules has no CEL to keep.
    if (options !== undefined && had) setExtension(options, fieldRules, kept);
  }
  for (const nested of message.nestedType) strip(nested);
}
