/**
 * Stage 2: ts-proto, spawned as the protoc plugin it is (it has no in-process
 * API: its entry reads stdin and exits), fed a CodeGeneratorRequest built from
 * buf's image. Output is identical to `buf generate` with the same options.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema, type FileDescriptorSet } from '@bufbuild/protobuf/wkt';
import { tsProtoParameter } from './ts-proto-options';

/** One emitted file: path relative to the output root, and its text. */
export interface EmittedFile {
  name: string;
  content: string;
}

function pluginPath(): string {
  return path.join(path.dirname(require.resolve('ts-proto/package.json')), 'build', 'src', 'plugin.js');
}

/**
 * Runs ts-proto over `set` for `filesToGenerate` (root-relative proto names).
 * @throws Error when the plugin fails or reports an error
 */
export function runTsProto(set: FileDescriptorSet, filesToGenerate: readonly string[]): EmittedFile[] {
  const request = create(CodeGeneratorRequestSchema, {
    fileToGenerate: [...filesToGenerate],
    parameter: tsProtoParameter(),
    protoFile: set.file,
  });
  const result = spawnSync(process.execPath, [pluginPath()], {
    input: toBinary(CodeGeneratorRequestSchema, request),
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error !== undefined) throw new Error(`fw-gen: cannot run ts-proto: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`fw-gen: ts-proto failed: ${result.stderr.toString('utf8')}`);
  const response = fromBinary(CodeGeneratorResponseSchema, result.stdout);
  if (response.error !== undefined && response.error !== '') throw new Error(`fw-gen: ts-proto: ${response.error}`);
  return response.file.map((f) => ({ name: f.name, content: f.content }));
}
