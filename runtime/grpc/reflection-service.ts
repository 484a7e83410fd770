/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha) from the file
 * descriptors fw already holds: generated services embed theirs, and proto
 * files loaded at run time carry them in their package definition. It takes
 * the arguments @grpc/reflection takes (a package definition whose entries
 * may list `fileDescriptorProtos`; `addToServer` registers one bidi method
 * per version through the engine's `addStreams`, grpc-call-port.ts),
 * so the gRPC server and the gateway serve reflection without that package,
 * proto-loader and protobufjs.
 *
 * Answers: `list_services`; `file_by_filename`, `file_containing_symbol`
 * (messages, fields, oneofs, enums, enum values, services, methods,
 * extensions) and `file_containing_extension` give the file followed by the
 * files it imports or takes types from, transitively, as stored (the bytes
 * are not re-encoded);
 * `all_extension_numbers_of_type`; anything else an error_response with
 * UNIMPLEMENTED, an unknown name NOT_FOUND.
 */
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type DescriptorProto, type EnumDescriptorProto, type FieldDescriptorProto, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { GrpcStatus } from '../core/status';
import { toStatusObject } from './errors';
import type { GrpcBidiStreamPort, StreamPortMethod } from './grpc-call-port';
import { decodeReflectionRequest, encodeReflectionResponse, type ReflectionAnswer, type ReflectionRequest } from './reflection-messages';

/** What reflection reads from a package definition: entries that may list serialized FileDescriptorProtos. */
export type DescriptorSource = Readonly<Record<string, unknown>>;

/** Options of {@link ReflectionService}. */
export interface ReflectionOptions {
  /** Services to list (full names); default every service in the descriptors. */
  services?: readonly string[];
}

/** A server reflection is added to: fw's engine, or a capturing stand-in. */
export interface ReflectionHost {
  addStreams(methods: readonly StreamPortMethod[]): void;
}

interface IndexedFile {
  proto: FileDescriptorProto;
  bytes: Uint8Array;
}

class NotFound extends Error {}

const VERSIONS = ['grpc.reflection.v1', 'grpc.reflection.v1alpha'] as const;

function methodOf(version: string, serve: (port: GrpcBidiStreamPort) => void): StreamPortMethod {
  return {
    path: `/${version}.ServerReflection/ServerReflectionInfo`,
    name: 'ServerReflectionInfo',
    kind: 'bidirectional',
    serve,
    requestSerialize: (request) => Buffer.from((request as ReflectionRequest).bytes),
    requestDeserialize: (bytes) => decodeReflectionRequest(bytes),
    responseSerialize: (response) => {
      const bytes = response as Uint8Array;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    responseDeserialize: (bytes) => bytes,
  };
}

function qualified(scope: string, name: string): string {
  return scope === '' ? name : `${scope}.${name}`;
}

/** Serves reflection over the descriptors in `source`; see the module comment. */
export class ReflectionService {
  readonly #files = new Map<string, IndexedFile>();
  readonly #symbols = new Map<string, IndexedFile>();
  readonly #services: string[] = [];
  /** Extendee (no leading dot) → field number → file. */
  readonly #extensions = new Map<string, Map<number, IndexedFile>>();

  constructor(source: DescriptorSource, options: ReflectionOptions = {}) {
    for (const entry of Object.values(source)) {
      const list = (entry as { fileDescriptorProtos?: unknown } | null)?.fileDescriptorProtos;
      if (!Array.isArray(list)) continue;
      for (const bytes of list as Uint8Array[]) {
        const proto = fromBinary(FileDescriptorProtoSchema, bytes);
        if (proto.name !== '' && !this.#files.has(proto.name)) this.#files.set(proto.name, { proto, bytes });
      }
    }
    const listed = options.services === undefined ? undefined : new Set(options.services);
    for (const file of this.#files.values()) this.#index(file, listed);
    for (const file of this.#files.values()) this.#referenced.set(file, this.#referencesOf(file));
  }

  /** Files whose types `file` uses (a proto-loader package definition names its files per package and lists no imports). */
  readonly #referenced = new Map<IndexedFile, IndexedFile[]>();

  #referencesOf(file: IndexedFile): IndexedFile[] {
    const found = new Set<IndexedFile>();
    const resolve = (ref: string, scope: string): void => {
      if (ref === '') return;
      let target: IndexedFile | undefined;
      if (ref.startsWith('.')) target = this.#symbols.get(ref.slice(1));
      else {
        // A relative name: innermost scope first, as protoc resolves it.
        for (let at = scope; target === undefined && at !== ''; at = at.includes('.') ? at.slice(0, at.lastIndexOf('.')) : '') target = this.#symbols.get(`${at}.${ref}`);
        target ??= this.#symbols.get(ref);
      }
      if (target !== undefined && target !== file) found.add(target);
    };
    const message = (scope: string, type: DescriptorProto): void => {
      const name = qualified(scope, type.name);
      for (const field of type.field) resolve(field.typeName, name);
      for (const field of type.extension) {
        resolve(field.typeName, name);
        resolve(field.extendee, name);
      }
      for (const nested of type.nestedType) message(name, nested);
    };
    const proto = file.proto;
    for (const type of proto.messageType) message(proto.package, type);
    for (const service of proto.service) {
      for (const method of service.method) {
        resolve(method.inputType, proto.package);
        resolve(method.outputType, proto.package);
      }
    }
    for (const field of proto.extension) {
      resolve(field.typeName, proto.package);
      resolve(field.extendee, proto.package);
    }
    return [...found];
  }

  /** Adds grpc.reflection.v1 and v1alpha to `server`. */
  addToServer(server: ReflectionHost): void {
    server.addStreams(VERSIONS.map((version) => methodOf(version, (port) => void this.#serve(port))));
  }

  /** The encoded answer to one request (exposed for the gateway's and the tests' use). */
  answer(request: ReflectionRequest): Uint8Array {
    return encodeReflectionResponse(request, this.#answer(request));
  }

  /** One answer per request, in order, until the client ends its side; then OK. */
  async #serve(port: GrpcBidiStreamPort): Promise<void> {
    try {
      for await (const request of port.requests) {
        if (!port.write(this.answer(request as ReflectionRequest))) await port.drained();
      }
    } catch (error) {
      // A cancelled call has nobody to tell; anything else (a refused request) ends with its status.
      if (!port.cancelled) port.fail(toStatusObject(error, 'ServerReflectionInfo', () => undefined));
      return;
    }
    if (!port.cancelled) port.finish(undefined);
  }

  #answer(request: ReflectionRequest): ReflectionAnswer {
    const question = request.question;
    try {
      switch (question.kind) {
        case 'listServices':
          return { kind: 'services', names: this.#services };
        case 'fileByFilename':
          return this.#withImports(this.#files.get(question.name), `Proto file not found: ${question.name}`);
        case 'fileContainingSymbol':
          return this.#withImports(this.#symbols.get(question.symbol), `Symbol not found: ${question.symbol}`);
        case 'fileContainingExtension':
          return this.#withImports(
            this.#extensions.get(question.containingType.replace(/^\./, ''))?.get(question.extensionNumber),
            `Extension not found for symbol ${question.containingType} at field ${question.extensionNumber}`,
          );
        case 'allExtensionNumbersOfType': {
          const numbers = this.#extensions.get(question.type.replace(/^\./, ''));
          if (numbers === undefined) throw new NotFound(`Extensions not found for symbol ${question.type}`);
          return { kind: 'extensionNumbers', baseTypeName: question.type, numbers: [...numbers.keys()] };
        }
        case 'none':
          return { kind: 'error', code: GrpcStatus.UNIMPLEMENTED, message: 'Unimplemented method for request: none' };
      }
    } catch (error) {
      if (error instanceof NotFound) return { kind: 'error', code: GrpcStatus.NOT_FOUND, message: error.message };
      return { kind: 'error', code: GrpcStatus.UNKNOWN, message: 'Failed to process gRPC reflection request: unknown error' };
    }
  }

  /** `file` and every file it imports or takes types from, transitively, each once. */
  #withImports(file: IndexedFile | undefined, notFound: string): ReflectionAnswer {
    if (file === undefined) throw new NotFound(notFound);
    const seen = new Set<IndexedFile>([file]);
    const queue = [file];
    for (let i = 0; i < queue.length; i++) {
      const current = queue[i] as IndexedFile;
      const imports = current.proto.dependency.map((name) => this.#files.get(name));
      for (const imported of [...imports, ...(this.#referenced.get(current) ?? [])]) {
        if (imported !== undefined && !seen.has(imported)) {
          seen.add(imported);
          queue.push(imported);
        }
      }
    }
    return { kind: 'files', files: queue.map((f) => f.bytes) };
  }

  #index(file: IndexedFile, listed: ReadonlySet<string> | undefined): void {
    const proto = file.proto;
    const symbol = (name: string): void => {
      if (!this.#symbols.has(name)) this.#symbols.set(name, file);
    };
    const extension = (scope: string, field: FieldDescriptorProto): void => {
      symbol(qualified(scope, field.name));
      const extendee = field.extendee.replace(/^\./, '');
      let numbers = this.#extensions.get(extendee);
      if (numbers === undefined) this.#extensions.set(extendee, (numbers = new Map()));
      numbers.set(field.number, file);
    };
    const enumType = (scope: string, type: EnumDescriptorProto): void => {
      const name = qualified(scope, type.name);
      symbol(name);
      for (const value of type.value) symbol(qualified(name, value.name));
    };
    const message = (scope: string, type: DescriptorProto): void => {
      const name = qualified(scope, type.name);
      symbol(name);
      for (const nested of type.nestedType) message(name, nested);
      for (const nested of type.enumType) enumType(name, nested);
      for (const field of type.field) symbol(qualified(name, field.name));
      for (const oneof of type.oneofDecl) symbol(qualified(name, oneof.name));
      for (const field of type.extension) extension(name, field);
    };
    const scope = proto.package;
    for (const type of proto.enumType) enumType(scope, type);
    for (const type of proto.messageType) message(scope, type);
    for (const service of proto.service) {
      const name = qualified(scope, service.name);
      symbol(name);
      for (const method of service.method) symbol(qualified(name, method.name));
      if ((listed === undefined || listed.has(name)) && !this.#services.includes(name)) this.#services.push(name);
    }
    for (const field of proto.extension) extension(scope, field);
  }
}
