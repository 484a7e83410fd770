/**
 * Duration, Timestamp and FieldMask rules. protovalidate evaluates these
 * with CEL; their texts are CEL's `%s` of the rule values, which prints a
 * Duration or Timestamp as its proto3 JSON string (`1.500s`,
 * `2024-01-01T00:00:00Z`) and a list as `[a, b]`. ts-proto gives Duration
 * and Timestamp as `{seconds: bigint, nanos}` and FieldMask as its paths.
 */
import { isFieldSet, toJson } from '@bufbuild/protobuf';
import { DurationSchema, TimestampSchema, type Duration, type Timestamp } from '@bufbuild/protobuf/wkt';
import {
  DurationRulesSchema,
  FieldMaskRulesSchema,
  TimestampRulesSchema,
  type DurationRules,
  type FieldMaskRules,
  type TimestampRules,
} from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import { notCompiled, ruleSet, violation, type RuleTarget } from './validator-source';

type Time = Duration | Timestamp;

function text(kind: 'duration' | 'timestamp', value: Time): string {
  return kind === 'duration' ? (toJson(DurationSchema, value as Duration) as string) : (toJson(TimestampSchema, value as Timestamp) as string);
}

function compare(a: Time, b: Time): number {
  return a.seconds < b.seconds ? -1 : a.seconds > b.seconds ? 1 : a.nanos - b.nanos;
}

export function timeRules(rules: DurationRules | TimestampRules, kind: 'duration' | 'timestamp', t: RuleTarget): string[] {
  if (rules.$unknown !== undefined && rules.$unknown.length > 0) notCompiled(`predefined ${kind} rules`);
  const schema = kind === 'duration' ? DurationRulesSchema : TimestampRulesSchema;
  const v = t.value;
  const constant = (value: Time): string => t.hoisted.name(`{ seconds: ${value.seconds}n, nanos: ${value.nanos} }`, kind === 'duration' ? 'DURATION' : 'TIMESTAMP');
  const cmp = (value: Time): string => `r.compareTime(${v}, ${constant(value)})`;
  const out: string[] = [];
  if (ruleSet(rules, schema, 'const') && rules.const !== undefined) {
    out.push(`if (${cmp(rules.const)} !== 0) ${violation(t.path, `${kind}.const`, `must equal ${text(kind, rules.const)}`)}`);
  }
  const hi = rules.lessThan;
  const lo = rules.greaterThan;
  const hiTime = hi.case === 'lt' || hi.case === 'lte' ? hi.value : undefined;
  const loTime = lo.case === 'gt' || lo.case === 'gte' ? lo.value : undefined;
  const above = hiTime === undefined ? '' : hi.case === 'lt' ? `${cmp(hiTime)} >= 0` : `${cmp(hiTime)} > 0`;
  const below = loTime === undefined ? '' : lo.case === 'gt' ? `${cmp(loTime)} <= 0` : `${cmp(loTime)} < 0`;
  const hiText = hiTime === undefined ? '' : `${hi.case === 'lt' ? 'less than' : 'less than or equal to'} ${text(kind, hiTime)}`;
  const loText = loTime === undefined ? '' : `${lo.case === 'gt' ? 'greater than' : 'greater than or equal to'} ${text(kind, loTime)}`;
  // The CEL rules are declared lt, lte, lt_now, then gt, gte, gt_now: an upper bound alone is reported at its own place.
  if (hiTime !== undefined && loTime === undefined) out.push(`if (${above}) ${violation(t.path, `${kind}.${hi.case}`, `must be ${hiText}`)}`);
  if (hi.case === 'ltNow' && hi.value) out.push(`if (r.compareTime(${v}, r.now()) > 0) ${violation(t.path, 'timestamp.lt_now', 'must be less than now')}`);
  if (loTime !== undefined) {
    if (hiTime === undefined) out.push(`if (${below}) ${violation(t.path, `${kind}.${lo.case}`, `must be ${loText}`)}`);
    else {
      const normal = compare(hiTime, loTime) >= 0;
      const fails = normal ? `${above} || ${below}` : `${above} && ${below}`;
      out.push(`if (${fails}) ${violation(t.path, `${kind}.${lo.case}_${hi.case as string}${normal ? '' : '_exclusive'}`, `must be ${loText} ${normal ? 'and' : 'or'} ${hiText}`)}`);
    }
  }
  if (lo.case === 'gtNow' && lo.value) out.push(`if (r.compareTime(${v}, r.now()) < 0) ${violation(t.path, 'timestamp.gt_now', 'must be greater than now')}`);
  if (kind === 'timestamp') {
    const ts = rules as TimestampRules;
    if (isFieldSet(ts, TimestampRulesSchema.field.within) && ts.within !== undefined) {
      out.push(`if (!r.withinOfNow(${v}, ${t.hoisted.name(`{ seconds: ${ts.within.seconds}n, nanos: ${ts.within.nanos} }`, 'DURATION')})) ${violation(t.path, 'timestamp.within', `must be within ${text('duration', ts.within)} of now`)}`);
    }
  } else {
    const ds = rules as DurationRules;
    const list = (values: Duration[]): string => t.hoisted.name(`[${values.map(constant).join(', ')}]`, 'IN');
    const listText = (values: Duration[]): string => `[${values.map((d) => text('duration', d)).join(', ')}]`;
    if (ds.in.length > 0) out.push(`if (!r.timeInList(${list(ds.in)}, ${v})) ${violation(t.path, 'duration.in', `must be in list ${listText(ds.in)}`)}`);
    if (ds.notIn.length > 0) out.push(`if (r.timeInList(${list(ds.notIn)}, ${v})) ${violation(t.path, 'duration.not_in', `must not be in list ${listText(ds.notIn)}`)}`);
  }
  return out;
}

export function fieldMaskRules(rules: FieldMaskRules, t: RuleTarget): string[] {
  if (rules.$unknown !== undefined && rules.$unknown.length > 0) notCompiled('predefined field_mask rules');
  const v = t.value;
  const out: string[] = [];
  const paths = (list: string[]): string => t.hoisted.name(JSON.stringify(list), 'PATHS');
  if (isFieldSet(rules, FieldMaskRulesSchema.field.const) && rules.const !== undefined) {
    const expected = rules.const.paths;
    out.push(`if (!r.samePaths(${v}, ${paths(expected)})) ${violation(t.path, 'field_mask.const', `must equal paths [${expected.join(', ')}]`)}`);
  }
  if (rules.in.length > 0) out.push(`if (!r.pathsWithin(${v}, ${paths(rules.in)})) ${violation(t.path, 'field_mask.in', `must only contain paths in [${rules.in.join(', ')}]`)}`);
  if (rules.notIn.length > 0) out.push(`if (r.pathsTouch(${v}, ${paths(rules.notIn)})) ${violation(t.path, 'field_mask.not_in', `must not contain any paths in [${rules.notIn.join(', ')}]`)}`);
  return out;
}
