/**
 * gRPC+JSON for configureGRPC's proto-file routes, read and written by the
 * message gate generated services use (rpc/message-gate.ts) over the file
 * descriptors proto-loader carries, with proto-loader's binary codec in place
 * of ts-proto's: a JSON request reaches the handler as the same object a
 * binary one does (64-bit integers as bigint), and the reply is canonical
 * proto3 JSON, written as for a generated service. Loaded with the first
 * `protoFiles`, so gateways without them never load the gate.
 */
import { fromBinary, fromJson, toBinary, toJson, type DescMessage } from '@bufbuild/protobuf';
import { protoCamelCase } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema, type DescriptorProto, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import type { MethodDefinition } from '@grpc/grpc-js';
import type { MessageCodec } from '../../rpc/descriptor';
import { MessageGate, type MethodGates } from '../../rpc/message-gate';
import { schemaSetOf, type SchemaSet } from '../../validation/schema-registry';

type LoadedMethod = MethodDefinition<unknown, unknown> & { requestType?: { fileDescriptorProtos?: Buffer[] } };

/**
 * The gates of one proto-loader method, or undefined when its file
 * descriptors do not resolve into a registry (the route then stays binary only).
 */
export function protoFileGates(definition: MethodDefinition<unknown, unknown>): MethodGates | undefined {
  const files = (definition as LoadedMethod).requestType?.fileDescriptorProtos;
  if (files === undefined || files.length === 0) return undefined;
  const set = schemaSetOf(withImports(files));
  if (set === undefined) return undefined;
  const slash = definition.path.lastIndexOf('/');
  const service = set.registry.getService(definition.path.slice(1, slash));
  const method = service?.methods.find((m) => m.name === definition.path.slice(slash + 1));
  if (method === undefined) return undefined;
  return {
    request: new MessageGate(set, method.input, loadedCodec(set, method.input, definition.requestSerialize, definition.requestDeserialize), {}, 'request'),
    response: new MessageGate(set, method.output, loadedCodec(set, method.output, definition.responseSerialize, definition.responseDeserialize), {}, 'response'),
  };
}

const resolved = new WeakMap<readonly Uint8Array[], Uint8Array[]>();

/**
 * protobufjs describes the loaded types as one file per package that imports
 * nothing, some type names relative and no JSON names, which no registry
 * resolves: each file gets fully qualified type names, JSON names as protoc
 * writes them and the imports its references need, and comes after those
 * (one array per package definition, as schemaSetOf caches them).
 */
function withImports(files: readonly Uint8Array[]): Uint8Array[] {
  let out = resolved.get(files);
  if (out !== undefined) return out;
  const protos = files.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
  const owner = new Map<string, FileDescriptorProto>();
  const declare = (file: FileDescriptorProto, scope: string, types: readonly { name: string; nestedType?: DescriptorProto[] }[]): void => {
    for (const type of types) {
      const name = `${scope}.${type.name}`;
      owner.set(name, file);
      declare(file, name, type.nestedType ?? []);
    }
  };
  for (const file of protos) {
    const scope = file.package === '' ? '' : `.${file.package}`;
    declare(file, scope, file.messageType);
    declare(file, scope, file.enumType);
    for (const message of file.messageType) declareEnums(file, `${scope}.${message.name}`, message, owner);
  }
  for (const file of protos) {
    const needed = new Set(file.dependency);
    const pkg = file.package === '' ? '' : `.${file.package}`;
    // A type name as a registry wants it: fully qualified (protobufjs writes some relative to their scope), its file imported.
    const use = (typeName: string, scope: string): string => {
      let name = typeName;
      if (name !== '' && !name.startsWith('.')) {
        for (let at = scope; ; at = at.slice(0, Math.max(0, at.lastIndexOf('.')))) {
          if (owner.has(`${at}.${typeName}`)) {
            name = `${at}.${typeName}`;
            break;
          }
          if (at === '') break;
        }
      }
      const from = owner.get(name);
      if (from !== undefined && from !== file) needed.add(from.name);
      return name;
    };
    const walk = (message: DescriptorProto, scope: string): void => {
      const name = `${scope}.${message.name}`;
      for (const field of message.field) {
        field.typeName = use(field.typeName, name);
        // protobufjs leaves json_name empty; protoc writes the lowerCamelCase name.
        if (field.jsonName === '') field.jsonName = protoCamelCase(field.name);
      }
      for (const nested of message.nestedType) walk(nested, name);
    };
    for (const message of file.messageType) walk(message, pkg);
    for (const service of file.service) {
      for (const method of service.method) {
        method.inputType = use(method.inputType, pkg);
        method.outputType = use(method.outputType, pkg);
      }
    }
    file.dependency = [...needed];
  }
  // A registry takes each file after the files it imports.
  const byName = new Map(protos.map((file) => [file.name, file]));
  const ordered: FileDescriptorProto[] = [];
  const place = (file: FileDescriptorProto, depth: number): void => {
    if (ordered.includes(file) || depth > protos.length) return;
    for (const name of file.dependency) {
      const dependency = byName.get(name);
      if (dependency !== undefined) place(dependency, depth + 1);
    }
    if (!ordered.includes(file)) ordered.push(file);
  };
  for (const file of protos) place(file, 0);
  out = ordered.map((file) => toBinary(FileDescriptorProtoSchema, file));
  resolved.set(files, out);
  return out;
}

function declareEnums(file: FileDescriptorProto, scope: string, message: DescriptorProto, owner: Map<string, FileDescriptorProto>): void {
  for (const type of message.enumType) owner.set(`${scope}.${type.name}`, file);
  for (const nested of message.nestedType) declareEnums(file, `${scope}.${nested.name}`, nested, owner);
}

/**
 * proto-loader's codec as the gate takes it. Its JSON methods (which the gate
 * calls for messages ts-proto would map exactly) go through binary and
 * @bufbuild/protobuf as well: proto-loader objects are not JSON-shaped
 * (defaults filled, enum names, Buffers).
 */
function loadedCodec(set: SchemaSet, schema: DescMessage, serialize: (value: unknown) => Buffer, deserialize: (bytes: Buffer) => unknown): MessageCodec<unknown> {
  const registry = set.typeRegistry;
  const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return {
    encode: (value) => serialize(value),
    decode: (bytes) => deserialize(asBuffer(bytes)),
    fromJSON: (json) => deserialize(asBuffer(toBinary(schema, fromJson(schema, json as never, { registry })))),
    toJSON: (value) => toJson(schema, fromBinary(schema, serialize(value)), { registry }),
  };
}
