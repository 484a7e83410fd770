/**
 * Duration, Timestamp and FieldMask rules. protovalidate evaluates these
 * with CEL, so their texts are CEL's formatting of the rule values.
 */
import type { DurationRules, FieldMaskRules, TimestampRules } from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import { notCompiled, type RuleTarget } from './validator-source';

export function timeRules(rules: DurationRules | TimestampRules, kind: 'duration' | 'timestamp', t: RuleTarget): string[] {
  void rules;
  void t;
  return notCompiled(`${kind} rules`);
}

export function fieldMaskRules(rules: FieldMaskRules, t: RuleTarget): string[] {
  void rules;
  void t;
  return notCompiled('field_mask rules');
}
