/**
 * `protoc-gen-fw`: fw-gen as a protoc/buf plugin (`buf generate` with
 * buf.gen.yaml). It runs the same stages 2–4 as fw-gen over the request's
 * descriptors and returns the same generated files. Stubs are not its
 * business: a plugin writes only under its `out`, and a stub is merged with
 * the user's edits, so `fw-gen` keeps creating and merging them.
 * Parameter: `module=esm|commonjs` (default: detected as fw-gen does, from
 * the directory buf runs in).
 */
import { InputError } from './cli-error';
import { generateFromDescriptors } from './generate';
import { detectModuleSystem, parseModuleFlag, type ModuleSystem } from './module-system';
import { decodePluginRequest, encodePluginResponse } from './plugin-protocol';

function moduleSystemOf(parameter: string, cwd: string): ModuleSystem {
  let forced: ModuleSystem | undefined;
  for (const option of parameter.split(',').filter((o) => o.trim() !== '')) {
    const [key, value] = option.split('=').map((s) => s.trim());
    if (key === 'module' && value !== undefined) forced = parseModuleFlag(value);
    else throw new InputError(`protoc-gen-fw: unknown option "${option}" (known: module=esm|commonjs)`);
  }
  return detectModuleSystem(cwd, forced).system;
}

/** Answers one CodeGeneratorRequest. */
export async function answerPluginRequest(request: Uint8Array, cwd: string): Promise<Uint8Array> {
  try {
    const { filesToGenerate, parameter, descriptorSet } = decodePluginRequest(request);
    const plan = await generateFromDescriptors(descriptorSet, filesToGenerate, moduleSystemOf(parameter, cwd));
    return encodePluginResponse(plan.files);
  } catch (e) {
    return encodePluginResponse(new Map(), e instanceof Error ? e.message : String(e));
  }
}

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads the request from stdin, writes the response to stdout. */
export async function runPlugin(): Promise<void> {
  const response = await answerPluginRequest(await readStdin(), process.cwd());
  await new Promise<void>((resolve, reject) => process.stdout.write(response, (e) => (e ? reject(e) : resolve())));
}
