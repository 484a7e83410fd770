/**
 * Loads `.proto` files through @grpc/proto-loader (the package definition
 * grpc-js, reflection and clients read) and gives each service method the
 * compiled codecs of ./compile-codecs.ts in place of proto-loader's own.
 * The compiler reads protobufjs's reflection, so the files are parsed a
 * second time into a protobufjs root by proto-loader's own loading step, so
 * both see the same types.
 */
import { createRequire } from 'node:module';
import type { MessageTypeDefinition, MethodDefinition, Options, PackageDefinition } from '@grpc/proto-loader';
import { compileCodecs, compiledLongForm, unsupportedPart, type CompiledCodec } from './compile-codecs';
import { isMessage, type ReflectedRoot, type ReflectedService, type ReflectedType } from './reflection';

/** Which codec proto-loaded methods use: fw's compiled ones (default), or proto-loader's, the way back. */
export type ProtoCodecChoice = 'compiled' | 'proto-loader';

/** proto-loader's internal loading module (build/src/util.js). */
interface LoaderUtil {
  loadProtosWithOptionsSync(files: string | string[], options: Options): ReflectedRoot;
}

type AnyMethod = MethodDefinition<unknown, unknown>;
type ProtoLoaderModule = typeof import('@grpc/proto-loader');

/** `files` loaded with `options`; service methods carry compiled codecs unless `codec` is 'proto-loader'. */
export function loadPackage(loader: ProtoLoaderModule, files: string | string[], options: Options, codec: ProtoCodecChoice = 'compiled'): PackageDefinition {
  const packageDefinition = loader.loadSync(files, options);
  const form = compiledLongForm(options);
  if (codec === 'proto-loader' || form === undefined) return packageDefinition;
  const root = loadRoot(files, options);
  if (root === undefined) {
    process.emitWarning("fw: proto-loader's loading module was not found; its codecs serve the loaded services", 'FwCodecWarning');
    return packageDefinition;
  }
  for (const [name, entry] of Object.entries(packageDefinition)) {
    if (entry === undefined || 'format' in entry) continue;
    const service = root.lookup(name) as ReflectedService | null;
    if (service === null || !Array.isArray(service.methodsArray)) continue;
    const methods = entry as Record<string, AnyMethod>;
    const types = new Set<ReflectedType>();
    for (const method of service.methodsArray) {
      for (const type of [method.resolvedRequestType, method.resolvedResponseType]) {
        if (type !== null && isMessage(type) && unsupportedPart(type) === undefined) types.add(type);
      }
    }
    if (types.size === 0) continue;
    const list = [...types];
    let compiled: CompiledCodec[];
    try {
      compiled = compileCodecs(list, form);
    } catch (error) {
      // A fault of the compiler must not stop the service: proto-loader's codec still serves it.
      process.emitWarning(`fw: ${name} keeps proto-loader's codec (the compiled codec failed to build: ${(error as Error).message})`, 'FwCodecWarning');
      continue;
    }
    const codecs = new Map<ReflectedType, CompiledCodec>(compiled.map((c, i) => [list[i] as ReflectedType, c]));
    for (const method of service.methodsArray) {
      const target = methods[method.name] as AnyMethod | undefined;
      if (target === undefined) continue;
      const request = method.resolvedRequestType === null ? undefined : codecs.get(method.resolvedRequestType);
      const response = method.resolvedResponseType === null ? undefined : codecs.get(method.resolvedResponseType);
      const writable = target as { -readonly [K in keyof AnyMethod]: AnyMethod[K] };
      if (request !== undefined) {
        writable.requestSerialize = request.encode;
        writable.requestDeserialize = request.decode;
        useCodec(target.requestType, request);
      }
      if (response !== undefined) {
        writable.responseSerialize = response.encode;
        writable.responseDeserialize = response.decode;
        useCodec(target.responseType, response);
      }
    }
  }
  return packageDefinition;
}

function useCodec(definition: MessageTypeDefinition<unknown, unknown> | undefined, codec: CompiledCodec): void {
  if (definition === undefined) return;
  const writable = definition as { serialize: (value: unknown) => Buffer; deserialize: (bytes: Buffer) => unknown };
  writable.serialize = codec.encode;
  writable.deserialize = codec.decode;
}

/**
 * The protobufjs root of `files`, built by proto-loader's own loading step
 * (its `util` module: the same protobufjs, include-path rule and common
 * protos that built the package definition), which its public API does not
 * export. Undefined when that module is not where this proto-loader keeps it.
 */
export function loadRoot(files: string | string[], options: Options): ReflectedRoot | undefined {
  let util: LoaderUtil;
  try {
    util = createRequire(require.resolve('@grpc/proto-loader'))('./util') as LoaderUtil;
  } catch {
    return undefined;
  }
  return typeof util.loadProtosWithOptionsSync === 'function' ? util.loadProtosWithOptionsSync(files, options) : undefined;
}
