/**
 * Buf's FileDescriptorSet cut at the wire level, without decoding it:
 * - each file's FileDescriptorProto for server reflection, as buf produced
 *   it minus `source_code_info` (field 9), which reflection never needs;
 * - a smaller FileDescriptorSet for the model stage, where only the user's
 *   own files keep their source info (comments are read from those alone).
 *   Imports such as descriptor.proto carry ~80% of an image's bytes as
 *   source info, and decoding it with the reflection runtime is the model
 *   stage's largest cost. Files the model stage already has as embedded
 *   descriptors (descriptor.proto) are left out of that set altogether.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

const SET_FILE = 1;
const FILE_NAME = 1;
const SOURCE_CODE_INFO = 9;

/** The two views of one image. */
export interface SplitDescriptorSet {
  /** File name (`user.proto`) → FileDescriptorProto bytes without source info. */
  files: Map<string, Uint8Array>;
  /** FileDescriptorSet bytes without `omit`, where only `keepSourceInfo` files have source info. */
  modelSet: Uint8Array;
}

/**
 * Splits `fileDescriptorSet` into per-file reflection bytes and the model
 * stage's trimmed set, in one pass.
 * @param keepSourceInfo proto paths whose comments the model reads
 * @param omit proto paths to leave out of `modelSet` (still in `files`)
 */
export function splitDescriptorSet(fileDescriptorSet: Uint8Array, keepSourceInfo: ReadonlySet<string>, omit: ReadonlySet<string> = new Set()): SplitDescriptorSet {
  const files = new Map<string, Uint8Array>();
  const model = new BinaryWriter();
  const set = new BinaryReader(fileDescriptorSet);
  while (set.pos < set.len) {
    const [field, wireType] = set.tag();
    if (field !== SET_FILE || wireType !== WireType.LengthDelimited) {
      set.skip(wireType, field);
      continue;
    }
    const file = set.bytes();
    const reader = new BinaryReader(file);
    const writer = new BinaryWriter();
    let name = '';
    let sourceInfo: Uint8Array | undefined;
    while (reader.pos < reader.len) {
      const start = reader.pos;
      const [f, w] = reader.tag();
      if (f === FILE_NAME && w === WireType.LengthDelimited) {
        name = reader.string();
        writer.raw(file.subarray(start, reader.pos));
      } else {
        reader.skip(w, f);
        if (f === SOURCE_CODE_INFO) sourceInfo = file.subarray(start, reader.pos);
        else writer.raw(file.subarray(start, reader.pos));
      }
    }
    const stripped = writer.finish();
    files.set(name, stripped);
    if (omit.has(name)) continue;
    // Source info goes last; field order does not matter to a decoder.
    if (sourceInfo !== undefined && keepSourceInfo.has(name)) model.tag(SET_FILE, WireType.LengthDelimited).bytes(concat(stripped, sourceInfo));
    else model.tag(SET_FILE, WireType.LengthDelimited).bytes(stripped);
  }
  return { files, modelSet: model.finish() };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** File name (`user.proto`) → FileDescriptorProto bytes without source info. */
export function fileDescriptorBytes(fileDescriptorSet: Uint8Array): Map<string, Uint8Array> {
  return splitDescriptorSet(fileDescriptorSet, new Set()).files;
}
