/**
 * The descriptors protovalidate checks a compiled message's CEL rules with:
 * the service's FileDescriptorProtos with every rule the compiled validator
 * already checks taken out. What stays on a field is its `cel` rules, its
 * rules message where that carries predefined (extension) rules, the CEL
 * rules of its list items, map keys and values, and the
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
  MapRulesSchema,
  RepeatedRulesSchema,
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

/** Just the CEL of a list item's, map key's or value's rules, with the `ignore` that decides whether it runs. */
function celOfElement(rules: FieldRules | undefined): FieldRules | undefined {
  if (rules === undefined || rules.cel.length + rules.celExpression.length === 0) return undefined;
  const kept = create(FieldRulesSchema, { cel: rules.cel, celExpression: rules.celExpression });
  if (isFieldSet(rules, FieldRulesSchema.field.ignore)) kept.ignore = rules.ignore;
  return kept;
}

/** A field's rules message as protovalidate must still see it: whole when it carries predefined rules, else the CEL of its elements. */
function celOfType(rules: FieldRules): FieldRules['type'] | undefined {
  if (hasPredefined(rules)) return rules.type;
  if (rules.type.case === 'repeated') {
    const items = celOfElement(rules.type.value.items);
    return items === undefined ? undefined : { case: 'repeated', value: create(RepeatedRulesSchema, { items }) };
  }
  if (rules.type.case === 'map') {
    const keys = celOfElement(rules.type.value.keys);
    const values = celOfElement(rules.type.value.values);
    return keys === undefined && values === undefined ? undefined : { case: 'map', value: create(MapRulesSchema, { keys, values }) };
  }
  return undefined;
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
      const type = celOfType(rules);
      if (type !== undefined) kept.type = type;
    }
    if (oneofFields.has(field.name) && (rules === undefined || !isFieldSet(rules, FieldRulesSchema.field.ignore))) kept.ignore = Ignore.IF_ZERO_VALUE;
    // A field without rules has no CEL to keep.
    if (options !== undefined && had) setExtension(options, fieldRules, kept);
  }
  for (const nested of message.nestedType) strip(nested);
}
