/**
 * Rules on fields of well-known message types, read from the forms ts-proto
 * gives them: wrappers are their scalar (rules apply to the wrapped value),
 * Any is `{typeUrl, value}`, Duration and Timestamp are `{seconds, nanos}`,
 * FieldMask is its list of paths. Struct, Value, ListValue and Empty carry
 * no type rules of their own.
 */
import { ScalarType, type DescMessage } from '@bufbuild/protobuf';
import type { FieldRules } from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import { timeRules, fieldMaskRules } from './time-rules';
import { notCompiled, violation, type RuleTarget } from './validator-source';

const WRAPPED: Readonly<Record<string, ScalarType>> = {
  'google.protobuf.DoubleValue': ScalarType.DOUBLE,
  'google.protobuf.FloatValue': ScalarType.FLOAT,
  'google.protobuf.Int64Value': ScalarType.INT64,
  'google.protobuf.UInt64Value': ScalarType.UINT64,
  'google.protobuf.Int32Value': ScalarType.INT32,
  'google.protobuf.UInt32Value': ScalarType.UINT32,
  'google.protobuf.BoolValue': ScalarType.BOOL,
  'google.protobuf.StringValue': ScalarType.STRING,
  'google.protobuf.BytesValue': ScalarType.BYTES,
};

/** The scalar a wrapper type holds (ts-proto gives the scalar itself), or undefined for other messages. */
export function wrapperScalar(message: DescMessage): ScalarType | undefined {
  return WRAPPED[message.typeName];
}

/** Checks of a well-known message value that is not a wrapper. */
export function messageValueRules(message: DescMessage, rules: FieldRules | undefined, t: RuleTarget): string[] {
  const type = rules?.type;
  if (type === undefined || type.case === undefined) return [];
  switch (message.typeName) {
    case 'google.protobuf.Any': {
      if (type.case !== 'any') break;
      const out: string[] = [];
      if (type.value.in.length > 0) {
        const list = t.hoisted.name(JSON.stringify(type.value.in), 'IN');
        out.push(`if (!${list}.includes(${t.value}.typeUrl)) ${violation(t.path, 'any.in', 'type URL must be in the allow list')}`);
      }
      if (type.value.notIn.length > 0) {
        const list = t.hoisted.name(JSON.stringify(type.value.notIn), 'IN');
        out.push(`if (${list}.includes(${t.value}.typeUrl)) ${violation(t.path, 'any.not_in', 'type URL must not be in the block list')}`);
      }
      return out;
    }
    case 'google.protobuf.Duration':
      if (type.case === 'duration') return timeRules(type.value, 'duration', t);
      break;
    case 'google.protobuf.Timestamp':
      if (type.case === 'timestamp') return timeRules(type.value, 'timestamp', t);
      break;
    case 'google.protobuf.FieldMask':
      if (type.case === 'fieldMask') return fieldMaskRules(type.value, t);
      break;
  }
  return notCompiled(`${type.case} rules on ${message.typeName}`);
}
