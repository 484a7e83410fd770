/**
 * Serialized FileDescriptorProtos for server reflection, cut from buf's
 * FileDescriptorSet at the wire level: each file's bytes as buf produced
 * them, minus `source_code_info` (field 9), which reflection never needs.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

const FILE_NAME = 1;
const SOURCE_CODE_INFO = 9;

/** File name (`user.proto`) → FileDescriptorProto bytes without source info. */
export function fileDescriptorBytes(fileDescriptorSet: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const set = new BinaryReader(fileDescriptorSet);
  while (set.pos < set.len) {
    const [field, wireType] = set.tag();
    if (field !== 1 || wireType !== WireType.LengthDelimited) {
      set.skip(wireType, field);
      continue;
    }
    const file = set.bytes();
    const reader = new BinaryReader(file);
    const writer = new BinaryWriter();
    let name = '';
    while (reader.pos < reader.len) {
      const start = reader.pos;
      const [f, w] = reader.tag();
      if (f === FILE_NAME && w === WireType.LengthDelimited) {
        name = reader.string();
        writer.raw(file.subarray(start, reader.pos));
      } else {
        reader.skip(w, f);
        if (f !== SOURCE_CODE_INFO) writer.raw(file.subarray(start, reader.pos));
      }
    }
    files.set(name, writer.finish());
  }
  return files;
}
