/**
 * fileDescriptorProtos: shipped descriptors by name, embedded pieces joined
 * back into one FileDescriptorProto, other generated files' lists included,
 * each file once.
 */
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { fileDescriptorProtos } from 'fw';

const names = (list: readonly Uint8Array[]): string[] => list.map((b) => fromBinary(FileDescriptorProtoSchema, b).name);

describe('fileDescriptorProtos', () => {
  it('names shipped files, joins embedded pieces and lists every file once', () => {
    // name: "a.proto" (field 1), then package "a" (field 2) in a second piece.
    const own = [Buffer.from([0x0a, 7, ...Buffer.from('a.proto')]).toString('base64'), Buffer.from([0x12, 1, 0x61]).toString('base64')];
    const imported = fileDescriptorProtos(['google/protobuf/timestamp.proto', own]);
    expect(names(imported)).toEqual(['google/protobuf/timestamp.proto', 'a.proto']);
    expect(fromBinary(FileDescriptorProtoSchema, imported[1] as Uint8Array).package).toBe('a');
    const b = [Buffer.from([0x0a, 7, ...Buffer.from('b.proto')]).toString('base64')];
    expect(names(fileDescriptorProtos([imported, 'google/protobuf/timestamp.proto', 'google/protobuf/empty.proto', b]))).toEqual([
      'google/protobuf/timestamp.proto',
      'a.proto',
      'google/protobuf/empty.proto',
      'b.proto',
    ]);
  });

  it('refuses a name fw does not ship, asking to regenerate', () => {
    expect(() => fileDescriptorProtos(['google/type/date.proto'])).toThrow('fw: no shipped descriptor for google/type/date.proto: regenerate the code with the fw-gen of this fw version');
  });
});
