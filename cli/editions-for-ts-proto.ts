/**
 * ts-proto reads an `edition = "2023"` file as proto3 and ignores its
 * features, so explicit presence, delimited (group-like) encoding and
 * expanded repeated fields would be generated with proto3's implicit
 * presence, length-prefixed messages and packed encoding: wire-incompatible
 * with every other implementation. Before ts-proto runs, each editions file of
 * the set is rewritten into the proto3 descriptor that means the same to it:
 * - a singular scalar or enum field with explicit presence → a proto3
 *   `optional` field (with its synthetic oneof);
 * - a message field with DELIMITED encoding → TYPE_GROUP (start/end tags);
 * - a repeated scalar with EXPANDED encoding → `packed = false`.
 * Features are resolved by @bufbuild/protobuf (file, message and field
 * levels, edition defaults). Only ts-proto's input changes: the model and the
 * descriptors embedded in generated code keep the original editions file.
 * Closed enums need nothing here: ts-proto keeps any number it reads.
 */
import { create, fromBinary, ScalarType, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { Edition, FieldDescriptorProto_Type, FieldOptionsSchema, FileDescriptorSetSchema, OneofDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { registryOf } from './file-registry';

/** `syntax = "editions"` as it appears on the wire in a FileDescriptorProto (field 12, length 8). */
const EDITIONS_SYNTAX = Buffer.from([0x62, 0x08, ...Buffer.from('editions')]);

/** Presence value of @bufbuild/protobuf's resolved features (FeatureSet.FieldPresence.EXPLICIT). */
const EXPLICIT_PRESENCE = 1;

/** The set ts-proto should read: `bytes` itself when no file is written in editions. */
export function tsProtoInput(bytes: Uint8Array): Uint8Array {
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(EDITIONS_SYNTAX) === -1) return bytes;
  const set = fromBinary(FileDescriptorSetSchema, bytes);
  const editions = set.file.filter((f) => f.syntax === 'editions');
  if (editions.length === 0) return bytes;
  const registry = registryOf(set);
  const rewrites: (() => void)[] = [];
  for (const proto of editions) {
    const file = registry.getFile(proto.name);
    if (file === undefined) continue;
    for (const message of file.messages) collectRewrites(message, rewrites, 0);
    rewrites.push(() => {
      proto.syntax = 'proto3';
      proto.edition = Edition.EDITION_UNKNOWN;
    });
  }
  // Features are all read before any descriptor changes.
  for (const rewrite of rewrites) rewrite();
  return toBinary(FileDescriptorSetSchema, set);
}

function collectRewrites(message: DescMessage, rewrites: (() => void)[], depth: number): void {
  if (depth > 100) return;
  for (const field of message.fields) {
    const proto = field.proto;
    if (field.fieldKind === 'message' && field.delimitedEncoding) {
      rewrites.push(() => void (proto.type = FieldDescriptorProto_Type.GROUP));
    } else if (field.fieldKind === 'list' && field.listKind === 'message' && field.delimitedEncoding) {
      rewrites.push(() => void (proto.type = FieldDescriptorProto_Type.GROUP));
    } else if (field.fieldKind === 'list' && field.listKind !== 'message' && !field.packed && field.scalar !== ScalarType.STRING && field.scalar !== ScalarType.BYTES) {
      rewrites.push(() => void (proto.options = { ...(proto.options ?? create(FieldOptionsSchema)), packed: false }));
    } else if ((field.fieldKind === 'scalar' || field.fieldKind === 'enum') && field.oneof === undefined && (field.presence as number) === EXPLICIT_PRESENCE) {
      rewrites.push(() => {
        const oneofs = message.proto.oneofDecl;
        oneofs.push(create(OneofDescriptorProtoSchema, { name: `_${proto.name}` }));
        proto.proto3Optional = true;
        proto.oneofIndex = oneofs.length - 1;
      });
    }
  }
  for (const nested of message.nestedMessages) collectRewrites(nested, rewrites, depth + 1);
}
