/**
 * The messages of gRPC server reflection (grpc.reflection.v1 and v1alpha:
 * same fields, same numbers), written and read with the protobuf wire codec.
 * Seven small messages do not justify a generated module or a proto loader.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

/** Which question a ServerReflectionRequest asks (its `message_request` oneof). */
export type ReflectionQuestion =
  | { kind: 'fileByFilename'; name: string }
  | { kind: 'fileContainingSymbol'; symbol: string }
  | { kind: 'fileContainingExtension'; containingType: string; extensionNumber: number }
  | { kind: 'allExtensionNumbersOfType'; type: string }
  | { kind: 'listServices' }
  | { kind: 'none' };

/** A decoded ServerReflectionRequest, with its bytes (echoed as `original_request`). */
export interface ReflectionRequest {
  host: string;
  question: ReflectionQuestion;
  bytes: Uint8Array;
}

/** What a ServerReflectionResponse answers (its `message_response` oneof). */
export type ReflectionAnswer =
  | { kind: 'files'; files: readonly Uint8Array[] }
  | { kind: 'extensionNumbers'; baseTypeName: string; numbers: readonly number[] }
  | { kind: 'services'; names: readonly string[] }
  | { kind: 'error'; code: number; message: string };

function decodeExtensionRequest(bytes: Uint8Array): { containingType: string; extensionNumber: number } {
  const reader = new BinaryReader(bytes);
  let containingType = '';
  let extensionNumber = 0;
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) containingType = reader.string();
    else if (field === 2 && wireType === WireType.Varint) extensionNumber = reader.int32();
    else reader.skip(wireType);
  }
  return { containingType, extensionNumber };
}

/** ServerReflectionRequest from its bytes; the last member of the oneof wins, as protobuf decoding says. */
export function decodeReflectionRequest(bytes: Uint8Array): ReflectionRequest {
  const reader = new BinaryReader(bytes);
  let host = '';
  let question: ReflectionQuestion = { kind: 'none' };
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    switch (field) {
      case 1:
        host = reader.string();
        break;
      case 3:
        question = { kind: 'fileByFilename', name: reader.string() };
        break;
      case 4:
        question = { kind: 'fileContainingSymbol', symbol: reader.string() };
        break;
      case 5:
        question = { kind: 'fileContainingExtension', ...decodeExtensionRequest(reader.bytes()) };
        break;
      case 6:
        question = { kind: 'allExtensionNumbersOfType', type: reader.string() };
        break;
      case 7:
        reader.string();
        question = { kind: 'listServices' };
        break;
      default:
        reader.skip(wireType);
    }
  }
  return { host, question, bytes };
}

/** ServerReflectionResponse for `request` with `answer`. */
export function encodeReflectionResponse(request: ReflectionRequest, answer: ReflectionAnswer): Uint8Array {
  const writer = new BinaryWriter();
  if (request.host !== '') writer.tag(1, WireType.LengthDelimited).string(request.host);
  writer.tag(2, WireType.LengthDelimited).bytes(request.bytes);
  switch (answer.kind) {
    case 'files': {
      writer.tag(4, WireType.LengthDelimited).fork();
      for (const file of answer.files) writer.tag(1, WireType.LengthDelimited).bytes(file);
      writer.join();
      break;
    }
    case 'extensionNumbers': {
      writer.tag(5, WireType.LengthDelimited).fork();
      if (answer.baseTypeName !== '') writer.tag(1, WireType.LengthDelimited).string(answer.baseTypeName);
      if (answer.numbers.length > 0) {
        writer.tag(2, WireType.LengthDelimited).fork();
        for (const number of answer.numbers) writer.int32(number);
        writer.join();
      }
      writer.join();
      break;
    }
    case 'services': {
      writer.tag(6, WireType.LengthDelimited).fork();
      for (const name of answer.names) writer.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(name).join();
      writer.join();
      break;
    }
    case 'error': {
      writer.tag(7, WireType.LengthDelimited).fork();
      if (answer.code !== 0) writer.tag(1, WireType.Varint).int32(answer.code);
      if (answer.message !== '') writer.tag(2, WireType.LengthDelimited).string(answer.message);
      writer.join();
      break;
    }
  }
  return writer.finish();
}
