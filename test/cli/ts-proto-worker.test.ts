/**
 * ts-proto in its worker thread: output comes back whole, a plugin failure
 * is reported with the plugin's own message, and a cancelled or never-fed
 * worker does not keep the process alive.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { startTsProto } from '../../cli/run-ts-proto';

function set(typeName: string): Uint8Array {
  return toBinary(
    FileDescriptorSetSchema,
    create(FileDescriptorSetSchema, {
      file: [
        {
          name: 'w.proto',
          package: 'w',
          syntax: 'proto3',
          messageType: [{ name: 'Ping', field: [{ name: 'other', number: 1, label: 1, type: 11, typeName, jsonName: 'other' }] }, { name: 'Pong' }],
        },
      ],
    }),
  );
}

describe('startTsProto', () => {
  it('returns the emitted files', async () => {
    const files = await startTsProto().generate(set('.w.Pong'), ['w.proto']);
    expect(files.map((f) => f.name)).toEqual(['w.ts']);
    expect(files[0]?.content).toContain('export interface Ping');
  });

  it('reports a plugin failure with its message', async () => {
    await expect(startTsProto().generate(set('.w.Missing'), ['w.proto'])).rejects.toThrow(/^fw-gen: ts-proto failed: FAILED!/);
  });

  it('can be cancelled before it gets input, more than once', () => {
    const run = startTsProto();
    run.cancel();
    // A lingering worker would show up as a jest open handle.
    expect(() => run.cancel()).not.toThrow();
  });
});
