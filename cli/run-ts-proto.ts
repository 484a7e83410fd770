/**
 * Stage 2: ts-proto, run as the protoc plugin it is (it has no in-process
 * API: its entry reads stdin and exits), fed a CodeGeneratorRequest built from
 * buf's image. Output is identical to `buf generate` with the same options.
 *
 * The request is assembled at the wire level: a FileDescriptorSet is a list
 * of field-1 FileDescriptorProtos and a CodeGeneratorRequest carries the
 * same messages as field 15, so each entry is re-tagged without decoding.
 * The plugin runs asynchronously, so the model and templates render while
 * it works.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { tsProtoParameter } from './ts-proto-options';

/** One emitted file: path relative to the output root, and its text. */
export interface EmittedFile {
  name: string;
  content: string;
}

function pluginPath(): string {
  return path.join(path.dirname(require.resolve('ts-proto/package.json')), 'build', 'src', 'plugin.js');
}

/** CodeGeneratorRequest bytes from FileDescriptorSet bytes. */
export function codeGeneratorRequest(fileDescriptorSet: Uint8Array, filesToGenerate: readonly string[], parameter: string): Uint8Array {
  const writer = new BinaryWriter();
  for (const name of filesToGenerate) writer.tag(1, WireType.LengthDelimited).string(name);
  writer.tag(2, WireType.LengthDelimited).string(parameter);
  const reader = new BinaryReader(fileDescriptorSet);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) writer.tag(15, WireType.LengthDelimited).bytes(reader.bytes());
    else reader.skip(wireType, field);
  }
  return writer.finish();
}

/**
 * Decodes a CodeGeneratorResponse (error = 1; file = 15 with name = 1,
 * content = 15) at the wire level: only `@bufbuild/protobuf/wire` is loaded
 * on this path, not the reflection runtime.
 */
export function decodeCodeGeneratorResponse(bytes: Uint8Array): { error: string | undefined; files: EmittedFile[] } {
  const reader = new BinaryReader(bytes);
  let error: string | undefined;
  const files: EmittedFile[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) error = reader.string();
    else if (field === 15 && wireType === WireType.LengthDelimited) {
      const sub = new BinaryReader(reader.bytes());
      const file: EmittedFile = { name: '', content: '' };
      while (sub.pos < sub.len) {
        const [f, w] = sub.tag();
        if (f === 1 && w === WireType.LengthDelimited) file.name = sub.string();
        else if (f === 15 && w === WireType.LengthDelimited) file.content = sub.string();
        else sub.skip(w, f);
      }
      files.push(file);
    } else reader.skip(wireType, field);
  }
  return { error, files };
}

/** A ts-proto process started ahead of time; feed it once, or cancel it. */
export interface TsProtoRun {
  /** Sends the request; resolves to the emitted files. */
  generate(fileDescriptorSet: Uint8Array, filesToGenerate: readonly string[], importSuffix?: string): Promise<EmittedFile[]>;
  /** Kills the process (when buf failed and there is nothing to generate). */
  cancel(): void;
}

/**
 * Starts ts-proto before its input exists: the plugin spends a few hundred
 * milliseconds loading its modules, which then overlaps buf's build.
 * It runs in a worker thread rather than a child process: the plugin only
 * uses stdin, stdout, stderr and `process.exit`, which a worker provides
 * (its exit ends the worker alone), and a worker skips a second Node
 * start-up (~50 ms of CPU per run).
 * @example
 * const tsProto = startTsProto();
 * const files = await tsProto.generate(fileDescriptorSetBytes, ['user.proto']);
 */
export function startTsProto(): TsProtoRun {
  const worker = new Worker(pluginPath(), { stdin: true, stdout: true, stderr: true });
  // Until it has input, an idle plugin must not keep the process alive (a
  // run that stops at bad input exits at once): the worker is unref'd and
  // its output streams are read only from generate() on, since a flowing
  // worker stream holds the event loop. The plugin writes nothing before
  // it has read all of stdin; a crash message waits in the stream's buffer.
  worker.unref();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  // The plugin may exit before reading all of stdin; its exit code reports the failure.
  worker.stdin?.on('error', () => undefined);
  let cancelled = false;
  // Settled once the worker has exited and its stdout has been read to the end.
  const stdoutEnded = new Promise<void>((resolve) => {
    worker.stdout.once('end', resolve);
    worker.stdout.once('close', resolve);
  });
  const done = new Promise<EmittedFile[]>((resolve, reject) => {
    worker.once('error', (e) => reject(new Error(`fw-gen: ts-proto failed: ${e.message}`)));
    worker.once('exit', (code) => {
      void stdoutEnded.then(() => {
        if (cancelled) {
          reject(new Error('fw-gen: ts-proto cancelled'));
          return;
        }
        if (code !== 0) {
          reject(new Error(`fw-gen: ts-proto failed: ${Buffer.concat(err).toString('utf8')}`));
          return;
        }
        try {
          const response = decodeCodeGeneratorResponse(Buffer.concat(out));
          if (response.error !== undefined && response.error !== '') throw new Error(`fw-gen: ts-proto: ${response.error}`);
          resolve(response.files);
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    });
  });
  // Unobserved when cancelled; generate() hands it to the caller otherwise.
  done.catch(() => undefined);
  return {
    generate(fileDescriptorSet, filesToGenerate, importSuffix = '') {
      worker.ref();
      worker.stdout.on('data', (c: Buffer) => out.push(c));
      worker.stderr.on('data', (c: Buffer) => err.push(c));
      worker.stdin?.end(codeGeneratorRequest(fileDescriptorSet, filesToGenerate, tsProtoParameter(importSuffix)));
      return done;
    },
    cancel() {
      cancelled = true;
      void worker.terminate();
    },
  };
}

let prestarted: TsProtoRun | undefined;

/**
 * Starts the plugin for the next {@link acquireTsProto} now, before the rest
 * of the CLI has loaded (cli/prestart.ts), so that ts-proto's own start-up
 * overlaps fw-gen's. Idempotent.
 */
export function prestartTsProto(): void {
  prestarted ??= startTsProto();
}

/** The prestarted plugin if there is one (once), else a new one. */
export function acquireTsProto(): TsProtoRun {
  const run = prestarted ?? startTsProto();
  prestarted = undefined;
  return run;
}
