/**
 * Which messages ts-proto's own `toJSON`/`fromJSON` map exactly as
 * @bufbuild/protobuf does. Those keep the shorter path (no trip through
 * binary); every other message is converted by @bufbuild/protobuf, the one
 * JSON mapping fw answers with.
 */
import type { DescField, DescMessage } from '@bufbuild/protobuf';

/**
 * Scalars whose JSON ts-proto writes and reads canonically: 32-bit integers,
 * bool and string. Left out: 64-bit integers (bigint parsing), float and
 * double (NaN, Infinity), bytes (base64 flavours).
 */
const EXACT_SCALARS = new Set<number>([5 /* INT32 */, 7 /* FIXED32 */, 8 /* BOOL */, 9 /* STRING */, 13 /* UINT32 */, 15 /* SFIXED32 */, 17 /* SINT32 */]);

/** google.protobuf.Edition.EDITION_PROTO3: proto2 defaults and editions' presence rules stay with @bufbuild/protobuf. */
const EDITION_PROTO3 = 999;

const exact = new WeakMap<DescMessage, boolean>();

/**
 * True when every field reachable from `message` is an exact scalar, a
 * message that is itself exact, or a list or string/int-keyed map of those.
 * Enums (unknown numbers), well-known types (their JSON forms) and
 * non-proto3 files are not.
 */
export function tsProtoJsonExact(message: DescMessage, seen = new Set<DescMessage>()): boolean {
  const known = exact.get(message);
  if (known !== undefined) return known;
  if (seen.has(message)) return true;
  seen.add(message);
  let result = message.file.edition === EDITION_PROTO3 && !message.typeName.startsWith('google.protobuf.');
  for (const field of message.fields) {
    if (!result) break;
    result = fieldExact(field, seen);
  }
  exact.set(message, result);
  return result;
}

function fieldExact(field: DescField, seen: Set<DescMessage>): boolean {
  switch (field.fieldKind) {
    case 'scalar':
      return EXACT_SCALARS.has(field.scalar);
    case 'message':
      return tsProtoJsonExact(field.message, seen);
    case 'list':
      if (field.listKind === 'scalar') return EXACT_SCALARS.has(field.scalar);
      if (field.listKind === 'message') return tsProtoJsonExact(field.message, seen);
      return false;
    case 'map':
      if (field.mapKey === 8 /* BOOL */ || !EXACT_SCALARS.has(field.mapKey)) return false;
      if (field.mapKind === 'scalar') return EXACT_SCALARS.has(field.scalar);
      if (field.mapKind === 'message') return tsProtoJsonExact(field.message, seen);
      return false;
    default:
      return false;
  }
}
