/**
 * buf.validate rules → straight-line TypeScript over ts-proto's objects: one
 * function per message type that has rules (or contains one that has),
 * checking its fields in declaration order and then its message and oneof
 * rules, which is the order protovalidate reports violations in. A message
 * whose rules (or whose nested messages' rules) include something the
 * compiler has no code for (CEL expressions, predefined rules, proto2 and
 * editions files) gets no function: the runtime checks it with
 * protovalidate's interpreter, as before.
 */
import { getOption, hasOption, ScalarType, type DescEnum, type DescField, type DescMessage, type DescOneof, type Message } from '@bufbuild/protobuf';
import {
  field as fieldRulesExtension,
  FieldRulesSchema,
  Ignore,
  MapRulesSchema,
  RepeatedRulesSchema,
  message as messageRulesExtension,
  oneof as oneofRulesExtension,
  type FieldRules,
  type MessageRules,
} from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import { tsProtoPropertyName } from '../../runtime/validation/ts-proto-shapes';
import { boolRules, bytesRules, enumRules, isNumericRules, numericRules, stringRules } from './scalar-rules';
import { messageValueRules, wrapperScalar } from './message-value-rules';
import { Hoisted, NotCompiled, notCompiled, ruleSet, violation, type RuleTarget } from './validator-source';

/** google.protobuf.FeatureSet.FieldPresence.IMPLICIT */
const IMPLICIT = 2;
/** google.protobuf.Edition.EDITION_PROTO3: ts-proto's objects of other editions have other shapes. */
const EDITION_PROTO3 = 999;

export interface CompiledValidators {
  /** Module-level constants, then one function per compiled message type. */
  readonly code: string;
  /** Proto type name → name of its function, for every compiled message type. */
  readonly functions: ReadonlyMap<string, string>;
  /** Proto type name → why it keeps protovalidate, for every ruled type that did not compile. */
  readonly interpreted: ReadonlyMap<string, string>;
  /**
   * Compiled types that also need protovalidate for their CEL rules (custom
   * `cel` on fields and messages, predefined rules), or hold a type that does.
   */
  readonly cel: ReadonlySet<string>;
}

function fieldRulesOf(field: DescField): FieldRules | undefined {
  return hasOption(field, fieldRulesExtension) ? getOption(field, fieldRulesExtension) : undefined;
}

function messageRulesOf(message: DescMessage): MessageRules | undefined {
  return hasOption(message, messageRulesExtension) ? getOption(message, messageRulesExtension) : undefined;
}

function oneofRequired(oneof: DescOneof): boolean {
  return hasOption(oneof, oneofRulesExtension) && getOption(oneof, oneofRulesExtension).required;
}

/** Message types whose values ts-proto gives in a form of their own, checked inline rather than by a function. */
function isWellKnown(message: DescMessage): boolean {
  return message.typeName.startsWith('google.protobuf.');
}

/** The message types a message's fields hold (list items and map values included). */
function children(message: DescMessage): DescMessage[] {
  const out: DescMessage[] = [];
  for (const f of message.fields) if (f.message !== undefined && !isWellKnown(f.message)) out.push(f.message);
  return out;
}

function ownRules(message: DescMessage): boolean {
  if (messageRulesOf(message) !== undefined) return true;
  if (message.oneofs.some(oneofRequired)) return true;
  return message.fields.some((f) => fieldRulesOf(f) !== undefined);
}

/** Every user message type reachable from `roots`. */
function reachable(roots: readonly DescMessage[]): DescMessage[] {
  const seen = new Set<DescMessage>();
  const order: DescMessage[] = [];
  const stack = [...roots].filter((m) => !isWellKnown(m));
  while (stack.length > 0) {
    const m = stack.pop() as DescMessage;
    if (seen.has(m)) continue;
    seen.add(m);
    order.push(m);
    stack.push(...children(m));
  }
  return order.sort((a, b) => (a.typeName < b.typeName ? -1 : a.typeName > b.typeName ? 1 : 0));
}

/** The types among `all` that have rules or reach one that has: a fixpoint, so cycles are right. */
function ruledTypes(all: readonly DescMessage[]): Set<DescMessage> {
  const ruled = new Set(all.filter(ownRules));
  for (let changed = true; changed; ) {
    changed = false;
    for (const m of all) if (!ruled.has(m) && children(m).some((c) => ruled.has(c))) (ruled.add(m), (changed = true));
  }
  return ruled;
}

/** The function name of a message type: its proto name with dots as underscores. */
function functionName(message: DescMessage): string {
  return `validate_${message.typeName.replace(/\./g, '_')}`;
}

interface Emit {
  readonly hoisted: Hoisted;
  readonly ruled: ReadonlySet<DescMessage>;
  /** The TypeScript type ts-proto gives `message`'s objects. */
  readonly tsType: (message: DescMessage) => string;
  /** Set while compiling a message that has CEL rules of its own (left to protovalidate). */
  readonly cel: { found: boolean };
}

/** Is-set of a scalar or enum value as protovalidate's `isSet` reads it for implicit presence: not its zero. */
function notZero(field: DescField, v: string): string {
  if (field.fieldKind === 'enum') return `${v} !== 0`;
  switch (field.scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      // -0 is set: @bufbuild/protobuf tells it from 0 (and writes it).
      return `!Object.is(${v}, 0)`;
    case ScalarType.STRING:
      return `${v} !== ''`;
    case ScalarType.BYTES:
      return `${v}.length > 0`;
    case ScalarType.BOOL:
      return `${v}`;
    default:
      return isLong(field.scalar) ? `${v} !== 0n` : `${v} !== 0`;
  }
}

function isLong(scalar: ScalarType | undefined): boolean {
  return scalar === ScalarType.INT64 || scalar === ScalarType.UINT64 || scalar === ScalarType.SINT64 || scalar === ScalarType.FIXED64 || scalar === ScalarType.SFIXED64;
}

/** The zero a list item or map value is compared with under `ignore: IGNORE_IF_ZERO_VALUE`. */
function zeroTest(kind: 'scalar' | 'enum', scalar: ScalarType | undefined, descEnum: DescEnum | undefined, v: string): string {
  if (kind === 'enum') return `${v} !== ${(descEnum as DescEnum).values[0]?.number ?? 0}`;
  switch (scalar) {
    case ScalarType.STRING:
      return `${v} !== ''`;
    case ScalarType.BYTES:
      return `${v}.length > 0`;
    case ScalarType.BOOL:
      return `${v} !== false`;
    default:
      return isLong(scalar) ? `${v} !== 0n` : `${v} !== 0`;
  }
}

/** The type rules a scalar or enum value carries (`rules.type`), checked against the value's kind. */
function scalarTypeRules(rules: FieldRules | undefined, scalar: ScalarType | undefined, descEnum: DescEnum | undefined, t: RuleTarget): string[] {
  const type = rules?.type;
  if (type === undefined || type.case === undefined) return [];
  if (descEnum !== undefined) {
    if (type.case !== 'enum') notCompiled(`${type.case} rules on an enum`);
    return enumRules(type.value, descEnum, t);
  }
  const expected = RULES_OF_SCALAR[scalar as ScalarType];
  if (type.case !== expected) notCompiled(`${type.case} rules on a ${expected} value`);
  if (type.case === 'string') return stringRules(type.value, t);
  if (type.case === 'bytes') return bytesRules(type.value, t);
  if (type.case === 'bool') return boolRules(type.value, t);
  if (isNumericRules(type.value as Message)) return numericRules(type.value as never, t);
  return notCompiled(`${type.case} rules`);
}

const RULES_OF_SCALAR: Readonly<Record<ScalarType, string>> = {
  [ScalarType.DOUBLE]: 'double',
  [ScalarType.FLOAT]: 'float',
  [ScalarType.INT64]: 'int64',
  [ScalarType.UINT64]: 'uint64',
  [ScalarType.INT32]: 'int32',
  [ScalarType.FIXED64]: 'fixed64',
  [ScalarType.FIXED32]: 'fixed32',
  [ScalarType.BOOL]: 'bool',
  [ScalarType.STRING]: 'string',
  [ScalarType.BYTES]: 'bytes',
  [ScalarType.UINT32]: 'uint32',
  [ScalarType.SFIXED32]: 'sfixed32',
  [ScalarType.SFIXED64]: 'sfixed64',
  [ScalarType.SINT32]: 'sint32',
  [ScalarType.SINT64]: 'sint64',
};

/** CEL rules of list items, map keys or values: left to protovalidate (validation/cel-only-rules.ts keeps them), the rest compiled. */
function celOf(rules: FieldRules | undefined, e: Emit): void {
  if (rules === undefined) return;
  if (rules.cel.length > 0 || rules.celExpression.length > 0) e.cel.found = true;
  if (predefined(rules)) notCompiled('predefined rules on list items, map keys or values');
}

function block(lines: readonly string[], indent: string): string[] {
  return lines.map((l) => `${indent}${l}`);
}

/** Checks of one message value held in `v` (a user message with a function, or a well-known type checked inline). */
function messageValue(field: DescField, message: DescMessage, rules: FieldRules | undefined, v: string, path: string, e: Emit): string[] {
  if (!isWellKnown(message)) {
    if (rules?.type.case !== undefined) notCompiled(`${rules.type.case} rules on message ${message.typeName}`);
    return e.ruled.has(message) ? [`${functionName(message)}(${v}, ${path} + '.', out);`] : [];
  }
  const wrapped = wrapperScalar(message);
  const t: RuleTarget = { value: v, path, hoisted: e.hoisted };
  if (wrapped !== undefined) return scalarTypeRules(rules, wrapped, undefined, t);
  return messageValueRules(message, rules, t);
}

/** Checks of a list item or map value held in `v`: its own ignore, then its kind's rules. */
function elementChecks(field: DescField, kind: 'scalar' | 'enum' | 'message', rules: FieldRules | undefined, v: string, path: string, e: Emit): string[] {
  celOf(rules, e);
  const ignore = rules?.ignore ?? Ignore.UNSPECIFIED;
  if (ignore === Ignore.ALWAYS) return [];
  if (kind === 'message') return messageValue(field, field.message as DescMessage, rules, v, path, e);
  const scalar = kind === 'scalar' ? field.scalar : undefined;
  const checks = scalarTypeRules(rules, scalar, kind === 'enum' ? field.enum : undefined, { value: v, path, hoisted: e.hoisted });
  if (checks.length === 0 || ignore !== Ignore.IF_ZERO_VALUE) return checks;
  return [`if (${zeroTest(kind, scalar, field.enum, v)}) {`, ...block(checks, '  '), '}'];
}

function listChecks(field: DescField & { fieldKind: 'list' }, rules: FieldRules | undefined, v: string, path: string, e: Emit): string[] {
  const out: string[] = [];
  const type = rules?.type;
  let items: FieldRules | undefined;
  if (type !== undefined && type.case !== undefined) {
    if (type.case !== 'repeated') notCompiled(`${type.case} rules on a repeated field`);
    const repeated = type.value;
    if (repeated.$unknown !== undefined && repeated.$unknown.length > 0) notCompiled('predefined repeated rules');
    const set = (name: string): boolean => ruleSet(repeated, RepeatedRulesSchema, name);
    if (set('minItems')) out.push(`if (${v}.length < ${repeated.minItems}) ${violation(path, 'repeated.min_items', `must contain at least ${repeated.minItems} item(s)`)}`);
    if (set('maxItems')) out.push(`if (${v}.length > ${repeated.maxItems}) ${violation(path, 'repeated.max_items', `must contain no more than ${repeated.maxItems} item(s)`)}`);
    if (set('unique') && repeated.unique) {
      if (field.listKind === 'message' && wrapperScalar(field.message) === undefined) notCompiled('unique messages');
      const bytes = (field.listKind === 'scalar' && field.scalar === ScalarType.BYTES) || (field.listKind === 'message' && wrapperScalar(field.message) === ScalarType.BYTES);
      out.push(`if (!${bytes ? `r.uniqueBytes(${v})` : `r.unique(${v})`}) ${violation(path, 'repeated.unique', 'repeated value must contain unique items')}`);
    }
    items = repeated.items;
  }
  const item = elementChecks(field, field.listKind, items, 'item', `${path} + '[' + i + ']'`, e);
  if (item.length > 0) out.push(`for (let i = 0; i < ${v}.length; i++) {`, `  const item = ${v}[i]!;`, ...block(item, '  '), '}');
  return out;
}

function mapChecks(field: DescField & { fieldKind: 'map' }, rules: FieldRules | undefined, v: string, path: string, e: Emit): string[] {
  const out: string[] = [];
  const type = rules?.type;
  let keys: FieldRules | undefined;
  let values: FieldRules | undefined;
  if (type !== undefined && type.case !== undefined) {
    if (type.case !== 'map') notCompiled(`${type.case} rules on a map field`);
    const map = type.value;
    if (map.$unknown !== undefined && map.$unknown.length > 0) notCompiled('predefined map rules');
    const size = jsMap(field) ? `${v}.size` : `Object.keys(${v}).length`;
    const set = (name: string): boolean => ruleSet(map, MapRulesSchema, name);
    if (set('minPairs')) out.push(`if (${size} < ${map.minPairs}) ${violation(path, 'map.min_pairs', `map must be at least ${map.minPairs} entries`)}`);
    if (set('maxPairs')) out.push(`if (${size} > ${map.maxPairs}) ${violation(path, 'map.max_pairs', `map must be at most ${map.maxPairs} entries`)}`);
    keys = map.keys;
    values = map.values;
  }
  celOf(keys, e);
  const entryPath = `${path} + r.keyPath(key)`;
  const keyIgnore = keys?.ignore ?? Ignore.UNSPECIFIED;
  let keyChecks = keyIgnore === Ignore.ALWAYS ? [] : scalarTypeRules(keys, field.mapKey, undefined, { value: 'key', path: entryPath, hoisted: e.hoisted });
  if (keyChecks.length > 0 && keyIgnore === Ignore.IF_ZERO_VALUE) keyChecks = [`if (${zeroTest('scalar', field.mapKey, undefined, 'key')}) {`, ...block(keyChecks, '  '), '}'];
  const valueChecks = elementChecks(field, field.mapKind, values, 'value', entryPath, e);
  if (keyChecks.length === 0 && valueChecks.length === 0) return out;
  let key: string;
  let read: string;
  if (jsMap(field)) {
    key = `const key = rawKey as ${isLong(field.mapKey) ? 'bigint' : 'boolean'};`;
    read = `${v}.get(key)!`;
  } else {
    key = field.mapKey === ScalarType.STRING ? 'const key = rawKey as string;' : 'const key = Number(rawKey);';
    // ts-proto types maps with 32-bit integer keys by number.
    read = `${v}[key]!`;
  }
  out.push(`for (const rawKey of r.mapKeys(${v})) {`, `  ${key}`, `  const value = ${read};`, ...block(keyChecks, '  '), ...block(valueChecks, '  '), '}');
  return out;
}

/** ts-proto keeps maps with 64-bit and bool keys in a `Map`, the rest in plain objects. */
function jsMap(field: DescField & { fieldKind: 'map' }): boolean {
  return field.mapKey === ScalarType.BOOL || isLong(field.mapKey);
}

/** Fields named in a message-level `oneof` rule, which default to `ignore: IGNORE_IF_ZERO_VALUE`. */
function messageOneofFields(rules: MessageRules | undefined): Set<string> {
  return new Set((rules?.oneof ?? []).flatMap((o) => o.fields));
}

/**
 * A field on ts-proto's object `m`: the test of whether it is set (as
 * protovalidate's `isSet`: present, or not zero for implicit presence, or
 * not empty), and its value, read where that test holds (a oneof member's
 * value is only there when its case is).
 */
function access(field: DescField): { isSet: string; value: string; implicit: boolean } {
  if (field.oneof !== undefined) {
    const group = `m.${tsProtoPropertyName(field.oneof.name)}`;
    const prop = tsProtoPropertyName(field.name);
    return { isSet: `${group}?.$case === ${JSON.stringify(prop)}`, value: `${group}.${prop}`, implicit: false };
  }
  const value = `m.${tsProtoPropertyName(field.name)}`;
  switch (field.fieldKind) {
    case 'list':
      return { isSet: `${value}.length > 0`, value, implicit: true };
    case 'map':
      return { isSet: jsMap(field) ? `${value}.size > 0` : `Object.keys(${value}).length > 0`, value, implicit: true };
    case 'message':
      return { isSet: `${value} !== undefined`, value, implicit: false };
    default:
      return field.presence === IMPLICIT ? { isSet: notZero(field, value), value, implicit: true } : { isSet: `${value} !== undefined`, value, implicit: false };
  }
}

/** Predefined rules (extensions of a rules message) are CEL: protovalidate checks the field's whole rules message. */
function predefined(rules: FieldRules | undefined): boolean {
  const value = rules?.type.value as { $unknown?: unknown[] } | undefined;
  return value?.$unknown !== undefined && value.$unknown.length > 0;
}

function fieldChecks(field: DescField, messageRules: MessageRules | undefined, e: Emit): string[] {
  const rules = fieldRulesOf(field);
  // A field's own CEL rules are protovalidate's (for just them, docs/validation.md); its standard rules are compiled.
  if (rules !== undefined && (rules.cel.length > 0 || rules.celExpression.length > 0)) e.cel.found = true;
  const typeRulesByCel = predefined(rules);
  if (typeRulesByCel) {
    if (field.fieldKind === 'list' || field.fieldKind === 'map') notCompiled('predefined repeated or map rules');
    e.cel.found = true;
  }
  if ((field.fieldKind === 'scalar' || field.fieldKind === 'list') && field.scalar !== undefined && isLong(field.scalar) && field.longAsString) notCompiled('jstype = JS_STRING');
  let ignore = rules?.ignore ?? Ignore.UNSPECIFIED;
  if ((rules === undefined || !ruleSet(rules, FieldRulesSchema, 'ignore')) && messageOneofFields(messageRules).has(field.name)) ignore = Ignore.IF_ZERO_VALUE;
  if (ignore === Ignore.ALWAYS) return [];
  const required = rules?.required === true;
  const path = `p + ${JSON.stringify(field.name)}`;
  let checks: string[];
  switch (field.fieldKind) {
    case 'list':
      checks = listChecks(field, rules, 'v', path, e);
      break;
    case 'map':
      checks = mapChecks(field, rules, 'v', path, e);
      break;
    case 'message':
      checks = typeRulesByCel ? [] : messageValue(field, field.message, rules, 'v', path, e);
      break;
    default:
      checks = typeRulesByCel
        ? []
        : scalarTypeRules(rules, field.fieldKind === 'scalar' ? field.scalar : undefined, field.fieldKind === 'enum' ? field.enum : undefined, { value: 'v', path, hoisted: e.hoisted });
  }
  if (!required && checks.length === 0) return [];
  const { isSet, value, implicit } = access(field);
  const missing = violation(path, 'required', 'value is required');
  // Implicit presence (and lists and maps): the rules apply to the zero value too, unless ignored when zero.
  if (implicit && ignore !== Ignore.IF_ZERO_VALUE) {
    const out = ['{', `  const v = ${value};`];
    if (!required) return [...out, ...block(checks, '  '), '}'];
    const test = isSet.split(value).join('v');
    if (checks.length === 0) return [...out, `  if (!(${test})) ${missing}`, '}'];
    return [...out, `  if (!(${test})) ${missing}`, '  else {', ...block(checks, '    '), '  }', '}'];
  }
  const out = [`if (${isSet}) {`, `  const v = ${value};`, ...block(checks, '  '), '}'];
  if (required) out.push(`else ${missing}`);
  return out;
}

function messageLevelChecks(message: DescMessage, rules: MessageRules | undefined, e: Emit): string[] {
  const out: string[] = [];
  if (rules !== undefined && (rules.cel.length > 0 || rules.celExpression.length > 0)) e.cel.found = true;
  const self = `(p === '' ? '' : p.slice(0, -1))`;
  for (const rule of rules?.oneof ?? []) {
    const fields = rule.fields.map((name) => message.fields.find((f) => f.name === name));
    if (fields.length === 0 || fields.some((f) => f === undefined) || new Set(rule.fields).size !== rule.fields.length) notCompiled('an invalid message oneof rule');
    const names = rule.fields.join(', ');
    const count = (fields as DescField[]).map((f) => `(${access(f).isSet} ? 1 : 0)`).join(' + ');
    out.push(`{`, `  const set = ${count};`);
    out.push(`  if (set > 1) ${violation(self, 'message.oneof', `only one of ${names} can be set`)}`);
    if (rule.required) out.push(`  if (set === 0) ${violation(self, 'message.oneof', `one of ${names} must be set`)}`);
    out.push('}');
  }
  for (const oneof of message.oneofs) {
    if (!oneofRequired(oneof)) continue;
    out.push(`if (m.${tsProtoPropertyName(oneof.name)} === undefined) ${violation(`p + ${JSON.stringify(oneof.name)}`, 'required', 'exactly one field is required in oneof')}`);
  }
  return out;
}

function compileMessage(message: DescMessage, e: Emit): string {
  if (message.file.edition !== EDITION_PROTO3) notCompiled(`${message.file.name} is not proto3`);
  const rules = messageRulesOf(message);
  const body: string[] = [];
  e.cel.found = false;
  for (const field of message.fields) body.push(...fieldChecks(field, rules, e));
  body.push(...messageLevelChecks(message, rules, e));
  const name = functionName(message);
  return [
    `/** ${message.typeName}: field paths start with \`p\` ('' at the root, else the parent's path and a dot). */`,
    `function ${name}(m: ${e.tsType(message)}, p: string, out: FieldViolation[]): void {`,
    ...block(body, '  '),
    '}',
  ].join('\n');
}

/** Compiles the validators of every message type reachable from `roots` (request and response types). */
export function compileValidators(roots: readonly DescMessage[], tsType: (message: DescMessage) => string): CompiledValidators {
  const all = reachable(roots);
  const ruled = ruledTypes(all);
  const interpreted = new Map<string, string>();
  const probe: Emit = { hoisted: new Hoisted(), ruled, tsType, cel: { found: false } };
  const cel = new Set<string>();
  for (const m of ruled) {
    try {
      compileMessage(m, probe);
      if (probe.cel.found) cel.add(m.typeName);
    } catch (error) {
      if (!(error instanceof NotCompiled)) throw error;
      interpreted.set(m.typeName, error.message);
    }
  }
  // A type compiles only if every ruled type it holds compiles too.
  for (let changed = true; changed; ) {
    changed = false;
    for (const m of ruled) {
      if (interpreted.has(m.typeName)) continue;
      const bad = children(m).find((c) => interpreted.has(c.typeName));
      if (bad !== undefined) (interpreted.set(m.typeName, `holds ${bad.typeName}, which protovalidate checks`), (changed = true));
    }
  }
  const compiling = new Set([...ruled].filter((m) => !interpreted.has(m.typeName)));
  // protovalidate's pass for CEL reaches nested messages: a type holding one with CEL rules needs that pass too.
  for (let changed = true; changed; ) {
    changed = false;
    for (const m of compiling) if (!cel.has(m.typeName) && children(m).some((c) => cel.has(c.typeName))) (cel.add(m.typeName), (changed = true));
  }
  // Final pass with one set of hoisted constants for exactly the types that compile.
  const hoisted = new Hoisted();
  const e: Emit = { hoisted, ruled, tsType, cel: { found: false } };
  const ordered = all.filter((m) => compiling.has(m));
  const functions = new Map(ordered.map((m) => [m.typeName, functionName(m)]));
  const bodies = ordered.map((m) => compileMessage(m, e));
  const code = [...hoisted.lines, ...(hoisted.lines.length > 0 ? [''] : []), bodies.join('\n\n')].join('\n');
  return { code, functions, interpreted, cel: new Set([...cel].filter((t) => functions.has(t))) };
}
