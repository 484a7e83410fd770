/**
 * Code for the rules of one scalar value (numbers, bool, enum, string,
 * bytes), in the order protovalidate checks them and with the rule ids and
 * texts it reports. Every text is known at compile time: it names the rule's
 * bounds, never the value.
 */
import { isFieldSet, type DescEnum, type DescMessage, type Message } from '@bufbuild/protobuf';
import { RE2JS } from '@bufbuild/re2';
import {
  BoolRulesSchema,
  BytesRulesSchema,
  DoubleRulesSchema,
  EnumRulesSchema,
  Fixed32RulesSchema,
  Fixed64RulesSchema,
  FloatRulesSchema,
  Int32RulesSchema,
  Int64RulesSchema,
  KnownRegex,
  SFixed32RulesSchema,
  SFixed64RulesSchema,
  SInt32RulesSchema,
  SInt64RulesSchema,
  UInt32RulesSchema,
  UInt64RulesSchema,
  StringRulesSchema,
  type BoolRules,
  type BytesRules,
  type EnumRules,
  type StringRules,
} from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import { literal, notCompiled, ruleSet, violation, type RuleTarget } from './validator-source';

/** Any of the twelve numeric rule messages, read through the members they share. */
interface NumericRules extends Message {
  const?: number | bigint;
  in: (number | bigint)[];
  notIn: (number | bigint)[];
  lessThan: { case: 'lt' | 'lte'; value: number | bigint } | { case: undefined; value?: undefined };
  greaterThan: { case: 'gt' | 'gte'; value: number | bigint } | { case: undefined; value?: undefined };
  finite?: boolean;
}

/** The numeric rule messages: the type name rule ids start with, and the schema that says which rules are set. */
const NUMERIC_SCHEMAS = [
  ['float', FloatRulesSchema],
  ['double', DoubleRulesSchema],
  ['int32', Int32RulesSchema],
  ['int64', Int64RulesSchema],
  ['uint32', UInt32RulesSchema],
  ['uint64', UInt64RulesSchema],
  ['sint32', SInt32RulesSchema],
  ['sint64', SInt64RulesSchema],
  ['fixed32', Fixed32RulesSchema],
  ['fixed64', Fixed64RulesSchema],
  ['sfixed32', SFixed32RulesSchema],
  ['sfixed64', SFixed64RulesSchema],
] as const;

const NUMERIC = new Map<string, { type: string; schema: DescMessage }>(NUMERIC_SCHEMAS.map(([type, schema]) => [schema.typeName, { type, schema }]));

export function isNumericRules(rules: Message): rules is NumericRules {
  return NUMERIC.has(rules.$typeName);
}


function noExtensions(rules: { $unknown?: unknown[] }): void {
  if (rules.$unknown !== undefined && rules.$unknown.length > 0) notCompiled('predefined rules (extensions) are CEL');
}

/** A number as the rule texts print it (JavaScript's shortest form; NaN and Infinity by name). */
function printNumber(value: number | bigint): string {
  return typeof value === 'bigint' ? value.toString() : String(value);
}

function listText(values: readonly (number | bigint | string)[]): string {
  return `[${values.map((v) => (typeof v === 'string' ? v : printNumber(v))).join(', ')}]`;
}

export function numericRules(rules: NumericRules, t: RuleTarget): string[] {
  noExtensions(rules);
  const { type, schema } = NUMERIC.get(rules.$typeName) as { type: string; schema: DescMessage };
  const floating = type === 'float' || type === 'double';
  const v = t.value;
  const out: string[] = [];
  if (ruleSet(rules, schema, 'const')) {
    const c = rules.const as number | bigint;
    out.push(`if (${v} !== ${literal(c)}) ${violation(t.path, `${type}.const`, `must equal ${printNumber(c)}`)}`);
  }
  const lo = rules.greaterThan.case === undefined ? undefined : { kind: rules.greaterThan.case, value: rules.greaterThan.value };
  const hi = rules.lessThan.case === undefined ? undefined : { kind: rules.lessThan.case, value: rules.lessThan.value };
  if ((lo !== undefined && Number.isNaN(lo.value)) || (hi !== undefined && Number.isNaN(hi.value))) notCompiled('a NaN bound is evaluated by CEL');
  const nan = floating ? `${v} !== ${v} || ` : '';
  const below = lo === undefined ? '' : lo.kind === 'gt' ? `${v} <= ${literal(lo.value)}` : `${v} < ${literal(lo.value)}`;
  const above = hi === undefined ? '' : hi.kind === 'lt' ? `${v} >= ${literal(hi.value)}` : `${v} > ${literal(hi.value)}`;
  const loText = lo === undefined ? '' : lo.kind === 'gt' ? `greater than ${printNumber(lo.value)}` : `greater than or equal to ${printNumber(lo.value)}`;
  const hiText = hi === undefined ? '' : hi.kind === 'lt' ? `less than ${printNumber(hi.value)}` : `less than or equal to ${printNumber(hi.value)}`;
  if (lo !== undefined && hi !== undefined) {
    const normal = hi.value >= lo.value;
    const fails = normal ? `${nan}${above} || ${below}` : `${nan}(${above} && ${below})`;
    const id = `${type}.${lo.kind}_${hi.kind}${normal ? '' : '_exclusive'}`;
    out.push(`if (${fails}) ${violation(t.path, id, `must be ${loText} ${normal ? 'and' : 'or'} ${hiText}`)}`);
  } else if (lo !== undefined) {
    out.push(`if (${nan}${below}) ${violation(t.path, `${type}.${lo.kind}`, `must be ${loText}`)}`);
  } else if (hi !== undefined) {
    out.push(`if (${nan}${above}) ${violation(t.path, `${type}.${hi.kind}`, `must be ${hiText}`)}`);
  }
  if (rules.in.length > 0) {
    const list = t.hoisted.name(`[${rules.in.map(literal).join(', ')}]`, 'IN');
    out.push(`if (!r.inList(${list}, ${v})) ${violation(t.path, `${type}.in`, `must be in list ${listText(rules.in)}`)}`);
  }
  if (rules.notIn.length > 0) {
    const list = t.hoisted.name(`[${rules.notIn.map(literal).join(', ')}]`, 'IN');
    out.push(`if (r.inList(${list}, ${v})) ${violation(t.path, `${type}.not_in`, `must not be in list ${listText(rules.notIn)}`)}`);
  }
  if (floating && ruleSet(rules, schema, 'finite') && rules.finite === true) out.push(`if (!Number.isFinite(${v})) ${violation(t.path, `${type}.finite`, 'must be finite')}`);
  return out;
}

export function boolRules(rules: BoolRules, t: RuleTarget): string[] {
  noExtensions(rules);
  if (!isFieldSet(rules, BoolRulesSchema.field.const)) return [];
  return [`if (${t.value} !== ${literal(rules.const)}) ${violation(t.path, 'bool.const', `must equal ${String(rules.const)}`)}`];
}

/** `defined_only` (checked first, as its own step), then const, in and not_in. */
export function enumRules(rules: EnumRules, descEnum: DescEnum, t: RuleTarget): string[] {
  noExtensions(rules);
  const v = t.value;
  const out: string[] = [];
  if (isFieldSet(rules, EnumRulesSchema.field.definedOnly) && rules.definedOnly) {
    const defined = t.hoisted.name(`new Set([${[...new Set(descEnum.values.map((e) => e.number))].join(', ')}])`, 'ENUM');
    out.push(`if (!${defined}.has(${v})) ${violation(t.path, 'enum.defined_only', 'value must be one of the defined enum values')}`);
  }
  if (isFieldSet(rules, EnumRulesSchema.field.const)) out.push(`if (${v} !== ${rules.const}) ${violation(t.path, 'enum.const', `must equal ${rules.const}`)}`);
  if (rules.in.length > 0) {
    const list = t.hoisted.name(`[${rules.in.join(', ')}]`, 'IN');
    out.push(`if (!r.inList(${list}, ${v})) ${violation(t.path, 'enum.in', `must be in list ${listText(rules.in)}`)}`);
  }
  if (rules.notIn.length > 0) {
    const list = t.hoisted.name(`[${rules.notIn.join(', ')}]`, 'IN');
    out.push(`if (r.inList(${list}, ${v})) ${violation(t.path, 'enum.not_in', `must not be in list ${listText(rules.notIn)}`)}`);
  }
  return out;
}

function re2Pattern(pattern: string): void {
  try {
    RE2JS.compile(pattern);
  } catch {
    notCompiled(`pattern ${pattern} is not RE2`);
  }
}

interface WellKnownString {
  readonly check: (v: string, t: RuleTarget) => string;
  readonly message: string;
  readonly empty?: string;
}

const regexTest = (source: string) => (v: string, t: RuleTarget) => `${t.hoisted.name(`new RegExp(${JSON.stringify(source)})`, 'RE')}.test(${v})`;

/** The boolean `well_known` formats of StringRules, by rule field name. */
const WELL_KNOWN_STRINGS: Readonly<Record<string, WellKnownString>> = {
  email: { check: (v) => `r.formats.email(${v})`, message: 'must be a valid email address', empty: 'value is empty, which is not a valid email address' },
  hostname: { check: (v) => `r.formats.hostname(${v})`, message: 'must be a valid hostname', empty: 'value is empty, which is not a valid hostname' },
  ip: { check: (v) => `r.formats.ip(${v})`, message: 'must be a valid IP address', empty: 'value is empty, which is not a valid IP address' },
  ipv4: { check: (v) => `r.formats.ip(${v}, 4)`, message: 'must be a valid IPv4 address', empty: 'value is empty, which is not a valid IPv4 address' },
  ipv6: { check: (v) => `r.formats.ip(${v}, 6)`, message: 'must be a valid IPv6 address', empty: 'value is empty, which is not a valid IPv6 address' },
  uri: { check: (v) => `r.formats.uri(${v})`, message: 'must be a valid URI', empty: 'value is empty, which is not a valid URI' },
  uri_ref: { check: (v) => `r.formats.uriRef(${v})`, message: 'must be a valid URI Reference' },
  address: {
    check: (v) => `(r.formats.hostname(${v}) || r.formats.ip(${v}))`,
    message: 'must be a valid hostname, or ip address',
    empty: 'value is empty, which is not a valid hostname, or ip address',
  },
  uuid: {
    check: regexTest('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'),
    message: 'must be a valid UUID',
    empty: 'value is empty, which is not a valid UUID',
  },
  tuuid: { check: regexTest('^[0-9a-fA-F]{32}$'), message: 'must be a valid trimmed UUID', empty: 'value is empty, which is not a valid trimmed UUID' },
  ip_with_prefixlen: { check: (v) => `r.formats.ipPrefix(${v}, undefined, false)`, message: 'must be a valid IP prefix', empty: 'value is empty, which is not a valid IP prefix' },
  ipv4_with_prefixlen: {
    check: (v) => `r.formats.ipPrefix(${v}, 4, false)`,
    message: 'must be a valid IPv4 address with prefix length',
    empty: 'value is empty, which is not a valid IPv4 address with prefix length',
  },
  ipv6_with_prefixlen: {
    check: (v) => `r.formats.ipPrefix(${v}, 6, false)`,
    message: 'must be a valid IPv6 address with prefix length',
    empty: 'value is empty, which is not a valid IPv6 address with prefix length',
  },
  ip_prefix: { check: (v) => `r.formats.ipPrefix(${v}, undefined, true)`, message: 'must be a valid IP prefix', empty: 'value is empty, which is not a valid IP prefix' },
  ipv4_prefix: { check: (v) => `r.formats.ipPrefix(${v}, 4, true)`, message: 'must be a valid IPv4 prefix', empty: 'value is empty, which is not a valid IPv4 prefix' },
  ipv6_prefix: { check: (v) => `r.formats.ipPrefix(${v}, 6, true)`, message: 'must be a valid IPv6 prefix', empty: 'value is empty, which is not a valid IPv6 prefix' },
  host_and_port: {
    check: (v) => `r.formats.hostAndPort(${v})`,
    message: 'must be a valid host (hostname or IP address) and port pair',
    empty: 'value is empty, which is not a valid host and port pair',
  },
  ulid: { check: regexTest('^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$'), message: 'must be a valid ULID', empty: 'value is empty, which is not a valid ULID' },
  protobuf_fqn: {
    check: regexTest('^[A-Za-z_][A-Za-z_0-9]*(\\.[A-Za-z_][A-Za-z_0-9]*)*$'),
    message: 'must be a valid fully-qualified Protobuf name',
    empty: 'value is empty, which is not a valid fully-qualified Protobuf name',
  },
  protobuf_dot_fqn: {
    check: regexTest('^\\.[A-Za-z_][A-Za-z_0-9]*(\\.[A-Za-z_][A-Za-z_0-9]*)*$'),
    message: 'must be a valid fully-qualified Protobuf name with a leading dot',
    empty: 'value is empty, which is not a valid fully-qualified Protobuf name with a leading dot',
  },
};

/** HTTP header names and values (`well_known_regex`), strict unless `strict: false`. */
const HEADER_PATTERNS = {
  nameStrict: "^:?[0-9a-zA-Z!#$%&'*+-.^_|~`]+$",
  nameLoose: '^[^\\x00\\x0A\\x0D]+$',
  valueStrict: '^[^\\x00-\\x08\\x0A-\\x1F\\x7F]*$',
  valueLoose: '^[^\\x00\\x0A\\x0D]*$',
};

function wellKnownString(rules: StringRules, t: RuleTarget): string[] {
  const wk = rules.wellKnown;
  const v = t.value;
  if (wk.case === undefined) return [];
  if (wk.case === 'wellKnownRegex') {
    const strict = !isFieldSet(rules, StringRulesSchema.field.strict) || rules.strict;
    if (wk.value === KnownRegex.HTTP_HEADER_NAME) {
      const test = regexTest(strict ? HEADER_PATTERNS.nameStrict : HEADER_PATTERNS.nameLoose)(v, t);
      return [
        `if (${v} === '') ${violation(t.path, 'string.well_known_regex.header_name_empty', 'value is empty, which is not a valid HTTP header name')}`,
        `else if (!${test}) ${violation(t.path, 'string.well_known_regex.header_name', 'must be a valid HTTP header name')}`,
      ];
    }
    if (wk.value === KnownRegex.HTTP_HEADER_VALUE) {
      const test = regexTest(strict ? HEADER_PATTERNS.valueStrict : HEADER_PATTERNS.valueLoose)(v, t);
      return [`if (!${test}) ${violation(t.path, 'string.well_known_regex.header_value', 'must be a valid HTTP header value')}`];
    }
    return [];
  }
  if (wk.value !== true) return [];
  const name = StringRulesSchema.field[wk.case].name;
  const spec = WELL_KNOWN_STRINGS[name];
  if (spec === undefined) return notCompiled(`string.${name} has no compiled form`);
  const check = `if (!${spec.check(v, t)}) ${violation(t.path, `string.${name}`, spec.message)}`;
  if (spec.empty === undefined) return [check];
  return [`if (${v} === '') ${violation(t.path, `string.${name}_empty`, spec.empty)}`, `else ${check}`];
}

export function stringRules(rules: StringRules, t: RuleTarget): string[] {
  noExtensions(rules);
  const v = t.value;
  const F = StringRulesSchema.field;
  const out: string[] = [];
  const set = (f: (typeof F)[keyof typeof F]): boolean => isFieldSet(rules, f);
  if (set(F.const)) out.push(`if (${v} !== ${literal(rules.const)}) ${violation(t.path, 'string.const', `must equal \`${rules.const}\``)}`);
  if (set(F.len) || set(F.minLen) || set(F.maxLen)) {
    out.push(`const chars = r.chars(${v});`);
    if (set(F.len)) out.push(`if (chars !== ${rules.len}) ${violation(t.path, 'string.len', `must be ${rules.len} characters`)}`);
    if (set(F.minLen)) out.push(`if (chars < ${rules.minLen}) ${violation(t.path, 'string.min_len', `must be at least ${rules.minLen} characters`)}`);
    if (set(F.maxLen)) out.push(`if (chars > ${rules.maxLen}) ${violation(t.path, 'string.max_len', `must be at most ${rules.maxLen} characters`)}`);
  }
  if (set(F.lenBytes) || set(F.minBytes) || set(F.maxBytes)) {
    out.push(`const bytes = r.utf8Bytes(${v});`);
    if (set(F.lenBytes)) out.push(`if (bytes !== ${rules.lenBytes}) ${violation(t.path, 'string.len_bytes', `must be ${rules.lenBytes} bytes`)}`);
    if (set(F.minBytes)) out.push(`if (bytes < ${rules.minBytes}) ${violation(t.path, 'string.min_bytes', `must be at least ${rules.minBytes} bytes`)}`);
    if (set(F.maxBytes)) out.push(`if (bytes > ${rules.maxBytes}) ${violation(t.path, 'string.max_bytes', `must be at most ${rules.maxBytes} bytes`)}`);
  }
  if (set(F.pattern)) {
    re2Pattern(rules.pattern);
    out.push(`if (!r.matches(${literal(rules.pattern)}, ${v})) ${violation(t.path, 'string.pattern', `does not match regex pattern \`${rules.pattern}\``)}`);
  }
  if (set(F.prefix)) out.push(`if (!${v}.startsWith(${literal(rules.prefix)})) ${violation(t.path, 'string.prefix', `does not have prefix \`${rules.prefix}\``)}`);
  if (set(F.suffix)) out.push(`if (!${v}.endsWith(${literal(rules.suffix)})) ${violation(t.path, 'string.suffix', `does not have suffix \`${rules.suffix}\``)}`);
  if (set(F.contains)) out.push(`if (!${v}.includes(${literal(rules.contains)})) ${violation(t.path, 'string.contains', `does not contain substring \`${rules.contains}\``)}`);
  if (set(F.notContains)) out.push(`if (${v}.includes(${literal(rules.notContains)})) ${violation(t.path, 'string.not_contains', `contains substring \`${rules.notContains}\``)}`);
  if (rules.in.length > 0) {
    const list = t.hoisted.name(`[${rules.in.map(literal).join(', ')}]`, 'IN');
    out.push(`if (!${list}.includes(${v})) ${violation(t.path, 'string.in', `must be in list ${listText(rules.in)}`)}`);
  }
  if (rules.notIn.length > 0) {
    const list = t.hoisted.name(`[${rules.notIn.map(literal).join(', ')}]`, 'IN');
    out.push(`if (${list}.includes(${v})) ${violation(t.path, 'string.not_in', `must not be in list ${listText(rules.notIn)}`)}`);
  }
  out.push(...wellKnownString(rules, t));
  return out;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const looseUtf8 = new TextDecoder();

const WELL_KNOWN_BYTES: Readonly<Record<string, { sizes: number[]; message: string; empty: string }>> = {
  ip: { sizes: [4, 16], message: 'must be a valid IP address', empty: 'value is empty, which is not a valid IP address' },
  ipv4: { sizes: [4], message: 'must be a valid IPv4 address', empty: 'value is empty, which is not a valid IPv4 address' },
  ipv6: { sizes: [16], message: 'must be a valid IPv6 address', empty: 'value is empty, which is not a valid IPv6 address' },
  uuid: { sizes: [16], message: 'must be a valid UUID', empty: 'value is empty, which is not a valid UUID' },
};

export function bytesRules(rules: BytesRules, t: RuleTarget): string[] {
  noExtensions(rules);
  const v = t.value;
  const F = BytesRulesSchema.field;
  const set = (f: (typeof F)[keyof typeof F]): boolean => isFieldSet(rules, f);
  const bytesConst = (b: Uint8Array): string => t.hoisted.name(`new Uint8Array([${[...b].join(', ')}])`, 'BYTES');
  const out: string[] = [];
  if (set(F.const)) out.push(`if (!r.bytesEqual(${v}, ${bytesConst(rules.const)})) ${violation(t.path, 'bytes.const', `must be ${hex(rules.const)}`)}`);
  if (set(F.len)) out.push(`if (${v}.length !== ${rules.len}) ${violation(t.path, 'bytes.len', `must be ${rules.len} bytes`)}`);
  if (set(F.minLen)) out.push(`if (${v}.length < ${rules.minLen}) ${violation(t.path, 'bytes.min_len', `must be at least ${rules.minLen} bytes`)}`);
  if (set(F.maxLen)) out.push(`if (${v}.length > ${rules.maxLen}) ${violation(t.path, 'bytes.max_len', `must be at most ${rules.maxLen} bytes`)}`);
  if (set(F.pattern)) {
    re2Pattern(rules.pattern);
    out.push(`if (!r.matches(${literal(rules.pattern)}, r.utf8Text(${v}))) ${violation(t.path, 'bytes.pattern', `must match regex pattern \`${rules.pattern}\``)}`);
  }
  if (set(F.prefix)) out.push(`if (!r.bytesStartWith(${v}, ${bytesConst(rules.prefix)})) ${violation(t.path, 'bytes.prefix', `does not have prefix ${hex(rules.prefix)}`)}`);
  if (set(F.suffix)) out.push(`if (!r.bytesEndWith(${v}, ${bytesConst(rules.suffix)})) ${violation(t.path, 'bytes.suffix', `does not have suffix ${hex(rules.suffix)}`)}`);
  if (set(F.contains)) out.push(`if (!r.bytesContain(${v}, ${bytesConst(rules.contains)})) ${violation(t.path, 'bytes.contains', `does not contain ${hex(rules.contains)}`)}`);
  const listOf = (list: Uint8Array[]): string => t.hoisted.name(`[${list.map(bytesConst).join(', ')}]`, 'IN');
  const listText = (list: Uint8Array[]): string => `[${list.map((b) => looseUtf8.decode(b)).join(', ')}]`;
  if (rules.in.length > 0) out.push(`if (!r.bytesInList(${listOf(rules.in)}, ${v})) ${violation(t.path, 'bytes.in', `must be in list ${listText(rules.in)}`)}`);
  if (rules.notIn.length > 0) out.push(`if (r.bytesInList(${listOf(rules.notIn)}, ${v})) ${violation(t.path, 'bytes.not_in', `must not be in list ${listText(rules.notIn)}`)}`);
  const wk = rules.wellKnown;
  if (wk.case !== undefined && wk.value === true) {
    const spec = WELL_KNOWN_BYTES[wk.case];
    if (spec === undefined) return notCompiled(`bytes.${wk.case} has no compiled form`);
    out.push(`if (${v}.length === 0) ${violation(t.path, `bytes.${wk.case}_empty`, spec.empty)}`);
    out.push(`else if (${spec.sizes.map((s) => `${v}.length !== ${s}`).join(' && ')}) ${violation(t.path, `bytes.${wk.case}`, spec.message)}`);
  }
  return out;
}
