/**
 * The protoc plugin protocol, plugin side, at the wire level:
 * CodeGeneratorRequest in (file_to_generate = 1, parameter = 2, proto_file = 15),
 * CodeGeneratorResponse out (error = 1, supported_features = 2, file = 15 with
 * name = 1, content = 15). run-ts-proto.ts speaks the caller's side.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

/** A decoded CodeGeneratorRequest. */
export interface PluginRequest {
  filesToGenerate: string[];
  parameter: string;
  /** The request's proto_file entries as FileDescriptorSet bytes. */
  descriptorSet: Uint8Array;
}

/** Reads a CodeGeneratorRequest; proto_file entries are re-tagged as a FileDescriptorSet without decoding them. */
export function decodePluginRequest(bytes: Uint8Array): PluginRequest {
  const reader = new BinaryReader(bytes);
  const set = new BinaryWriter();
  const filesToGenerate: string[] = [];
  let parameter = '';
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) filesToGenerate.push(reader.string());
    else if (field === 2 && wireType === WireType.LengthDelimited) parameter = reader.string();
    else if (field === 15 && wireType === WireType.LengthDelimited) set.tag(1, WireType.LengthDelimited).bytes(reader.bytes());
    else reader.skip(wireType, field);
  }
  return { filesToGenerate, parameter, descriptorSet: set.finish() };
}

/** proto3 `optional` fields are supported (FEATURE_PROTO3_OPTIONAL). */
const FEATURE_PROTO3_OPTIONAL = 1;

/** Writes a CodeGeneratorResponse with files, or with an error buf shows the user. */
export function encodePluginResponse(files: ReadonlyMap<string, string>, error?: string): Uint8Array {
  const writer = new BinaryWriter();
  if (error !== undefined) writer.tag(1, WireType.LengthDelimited).string(error);
  writer.tag(2, WireType.Varint).uint64(FEATURE_PROTO3_OPTIONAL);
  for (const [name, content] of files) {
    writer.tag(15, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).string(name);
    writer.tag(15, WireType.LengthDelimited).string(content);
    writer.join();
  }
  return writer.finish();
}
