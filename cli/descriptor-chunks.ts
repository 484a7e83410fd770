/**
 * A FileDescriptorProto cut, at the wire level, into one piece per top-level
 * element (each message, enum, service and extension; the file's own fields
 * between them), each labelled: embedded one base64 line per piece, a change
 * to the proto shows in a diff as the lines of the elements it touched.
 * Concatenated again, the pieces are the original bytes: protobuf fields may
 * be split anywhere between them.
 */
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

/** One piece: what it holds and its bytes. */
export interface DescriptorChunk {
  /** `message User`, `service UserService`, `file user.proto: name, package, dependency`. */
  label: string;
  bytes: Uint8Array;
}

const ELEMENT_KINDS: Readonly<Record<number, string>> = { 4: 'message', 5: 'enum', 6: 'service', 7: 'extension' };
const NAME_FIELD = 1;
/** The file's own fields, named as in descriptor.proto. */
const FILE_FIELDS: Readonly<Record<number, string>> = { 1: 'name', 2: 'package', 3: 'dependency', 8: 'options', 9: 'source_code_info', 10: 'public_dependency', 11: 'weak_dependency', 12: 'syntax', 14: 'edition' };

/** The `name` (field 1) of an element's bytes. */
function elementName(bytes: Uint8Array): string {
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === NAME_FIELD && wireType === WireType.LengthDelimited) return reader.string();
    reader.skip(wireType, field);
  }
  return '';
}

/** Cuts `file` (FileDescriptorProto bytes named `fileName`) into labelled pieces, in byte order. */
export function descriptorChunks(file: Uint8Array, fileName: string): DescriptorChunk[] {
  const chunks: DescriptorChunk[] = [];
  const reader = new BinaryReader(file);
  let fileFieldsStart = -1;
  const fileFields: string[] = [];
  const flushFileFields = (end: number): void => {
    if (fileFieldsStart < 0) return;
    chunks.push({ label: `file ${fileName}: ${fileFields.join(', ')}`, bytes: file.subarray(fileFieldsStart, end) });
    fileFieldsStart = -1;
    fileFields.length = 0;
  };
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [field, wireType] = reader.tag();
    const kind = ELEMENT_KINDS[field];
    if (kind !== undefined && wireType === WireType.LengthDelimited) {
      flushFileFields(start);
      const element = reader.bytes();
      chunks.push({ label: `${kind} ${elementName(element)}`, bytes: file.subarray(start, reader.pos) });
    } else {
      reader.skip(wireType, field);
      if (fileFieldsStart < 0) fileFieldsStart = start;
      const named = FILE_FIELDS[field] ?? `field ${field}`;
      if (!fileFields.includes(named)) fileFields.push(named);
    }
  }
  flushFileFields(reader.pos);
  return chunks;
}
