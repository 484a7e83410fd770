/**
 * The model stage's input: buf's image cut at the wire level (per-file
 * reflection bytes, source info kept only for the user's files, embedded
 * files left out) and the registry over it; and when the CLI starts
 * ts-proto ahead of time.
 */
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  file_google_protobuf_descriptor,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { splitDescriptorSet } from '../../cli/descriptor-bytes';
import { EMBEDDED_FILES, registryOf } from '../../cli/file-registry';
import { wantsGeneration } from '../../cli/prestart';

function file(name: string, deps: string[], comment: string): FileDescriptorProto {
  return create(FileDescriptorProtoSchema, {
    name,
    package: 'pkg',
    dependency: deps,
    syntax: 'proto3',
    messageType: [{ name: `M${name.length}` }],
    sourceCodeInfo: { location: [{ path: [4, 0], span: [0, 0, 1], leadingComments: comment }] },
  });
}

function image(): Uint8Array {
  const descriptor = create(FileDescriptorProtoSchema, { ...file_google_protobuf_descriptor.proto });
  return toBinary(
    FileDescriptorSetSchema,
    create(FileDescriptorSetSchema, {
      file: [descriptor, file('dep.proto', ['google/protobuf/descriptor.proto'], ' dep comment'), file('user.proto', ['dep.proto'], ' user comment')],
    }),
  );
}

describe('splitDescriptorSet', () => {
  it('keeps source info only for the given files and leaves omitted files out of the model set', () => {
    const split = splitDescriptorSet(image(), new Set(['user.proto']), EMBEDDED_FILES);
    const set = fromBinary(FileDescriptorSetSchema, split.modelSet);
    expect(set.file.map((f) => f.name)).toEqual(['dep.proto', 'user.proto']);
    expect(set.file[0]?.sourceCodeInfo).toBeUndefined();
    expect(set.file[1]?.sourceCodeInfo?.location[0]?.leadingComments).toBe(' user comment');
  });

  it('gives every file, omitted ones included, its reflection bytes without source info', () => {
    const split = splitDescriptorSet(image(), new Set(['user.proto']), EMBEDDED_FILES);
    expect([...split.files.keys()]).toEqual(['google/protobuf/descriptor.proto', 'dep.proto', 'user.proto']);
    for (const bytes of split.files.values()) expect(fromBinary(FileDescriptorProtoSchema, bytes).sourceCodeInfo).toBeUndefined();
    expect(fromBinary(FileDescriptorProtoSchema, split.files.get('user.proto') as Uint8Array).messageType[0]?.name).toBe('M10');
  });

  it('skips fields other than files in the set', () => {
    const withJunk = new Uint8Array([...image(), 0x10, 0x01]);
    expect([...splitDescriptorSet(withJunk, new Set()).files.keys()]).toHaveLength(3);
  });
});

describe('registryOf', () => {
  it('resolves descriptor.proto to the runtime embedded descriptor and builds the rest', () => {
    const split = splitDescriptorSet(image(), new Set(['user.proto']), EMBEDDED_FILES);
    const registry = registryOf(fromBinary(FileDescriptorSetSchema, split.modelSet));
    expect(registry.getFile('google/protobuf/descriptor.proto')).toBe(file_google_protobuf_descriptor);
    expect(registry.getFile('user.proto')?.dependencies.map((d) => d.name)).toEqual(['dep']);
    expect(registry.getMessage('pkg.M10')?.file.name).toBe('user');
  });

  it('refuses a file whose import is missing from the set', () => {
    const set = create(FileDescriptorSetSchema, { file: [file('user.proto', ['missing.proto'], '')] });
    expect(() => registryOf(set)).toThrow(/missing\.proto/);
  });
});

describe('wantsGeneration', () => {
  it('is true for a generation or check run', () => {
    expect(wantsGeneration(['proto'])).toBe(true);
    expect(wantsGeneration(['--check', 'proto', '--out', 'gen'])).toBe(true);
  });

  it('is false for --help, --version and no arguments', () => {
    for (const argv of [[], ['--help'], ['-h'], ['--version'], ['-v'], ['proto', '--help']]) expect(wantsGeneration(argv)).toBe(false);
  });
});
