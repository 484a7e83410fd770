/**
 * fw's reflection service against @grpc/reflection (what it replaces), in
 * process, over the example protos: the generated UserService (descriptors
 * embedded by fw-gen) and proto/user.proto loaded at run time. Every request
 * — list_services, file_by_filename and file_containing_symbol for every file
 * and symbol, unknown names, an empty request — goes through both services'
 * own method definitions (deserialize, handler, serialize); the answers must
 * agree: same host, same kind, same error code, the same first file, and
 * every file @grpc/reflection sends also sent by fw (fw follows each file's
 * imports as well as its type references, which is all @grpc/reflection
 * follows). fw sends the files as stored; protobufjs re-encodes them and
 * drops descriptor fields it does not know, so the first file is compared
 * with the stored one.
 * Extensions are keyed without the leading dot in fw (@grpc/reflection keys
 * `.google.protobuf.MethodOptions`, which no client asks for): checked on
 * fw alone.
 */
import { once } from 'node:events';
import path from 'node:path';
import { Duplex } from 'node:stream';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService as GrpcReflection } from '@grpc/reflection';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { ReflectionService } from '../../runtime/grpc/reflection-service';
import { grpcJsStreamHandler } from '../../runtime/grpc/grpc-js-stream-port';
import { reflectionEntry } from '../../runtime/grpc/reflection-entry';
import { UserServiceDescriptor } from '../../generated/user.fw';

type Method = { path: string; requestDeserialize(b: Buffer): unknown; responseSerialize(v: unknown): Buffer; responseDeserialize(b: Buffer): unknown };
type Handler = (call: never) => void;

/** Captures what a reflection service adds: method path → [definition, handler]. */
function capture(service: { addToServer(server: never): void }): Map<string, [Method, Handler]> {
  const methods = new Map<string, [Method, Handler]>();
  const server = {
    addService(definition: Record<string, Method>, implementation: Record<string, Handler>) {
      for (const [name, method] of Object.entries(definition)) methods.set(method.path, [method, implementation[name] as Handler]);
    },
  };
  service.addToServer(server as never);
  return methods;
}

/** The same capture of fw's reflection, which registers port methods: each is served here through the grpc-js-shaped adapter, so a duplex can stand in for the call. */
function captureOurs(service: ReflectionService): Map<string, [Method, Handler]> {
  const methods = new Map<string, [Method, Handler]>();
  service.addToServer({ addStreams: (added) => added.forEach((method) => methods.set(method.path, [method, grpcJsStreamHandler(method, new Set()) as Handler])) });
  return methods;
}

/** One request through a captured method, on an object-mode duplex standing in for the call; the response bytes. */
async function ask(methods: Map<string, [Method, Handler]>, methodPath: string, request: Buffer): Promise<Buffer> {
  const [method, handler] = methods.get(methodPath) as [Method, Handler];
  let written: Buffer | undefined;
  const call = new Duplex({
    objectMode: true,
    read: () => undefined,
    write: (value: unknown, _encoding, done) => {
      written = method.responseSerialize(value);
      done();
    },
  });
  const finished = once(call, 'finish');
  handler(call as never);
  call.push(method.requestDeserialize(request));
  call.push(null);
  await finished;
  return written as Buffer;
}

type Question = [field: number, value: string] | [field: 'none'];

function requestBytes(host: string, question: Question): Buffer {
  const writer = new BinaryWriter();
  if (host !== '') writer.tag(1, WireType.LengthDelimited).string(host);
  if (question[0] !== 'none') writer.tag(question[0], WireType.LengthDelimited).string(question[1]);
  return Buffer.from(writer.finish());
}

interface Decoded {
  validHost?: string;
  messageResponse?: string;
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  listServicesResponse?: { service: { name: string }[] };
  errorResponse?: { errorCode: number };
}

/** A response in comparable form (decoded with @grpc/reflection's own definition). */
function comparable(decode: (b: Buffer) => unknown, bytes: Buffer): { host: string; kind: string; files?: { name: string; bytes: Uint8Array }[]; services?: string[]; code?: number } {
  const r = decode(bytes) as Decoded;
  return {
    host: r.validHost ?? '',
    kind: r.messageResponse ?? 'none',
    ...(r.fileDescriptorResponse === undefined
      ? {}
      : {
          files: r.fileDescriptorResponse.fileDescriptorProto.map((b) => {
            const copy = new Uint8Array(b);
            return { name: fromBinary(FileDescriptorProtoSchema, copy).name, bytes: copy };
          }),
        }),
    ...(r.listServicesResponse === undefined ? {} : { services: r.listServicesResponse.service.map((s) => s.name).sort() }),
    ...(r.errorResponse === undefined ? {} : { code: r.errorResponse.errorCode }),
  };
}

function symbolsOf(files: readonly Uint8Array[]): string[] {
  const out: string[] = [];
  for (const bytes of files) {
    const file = fromBinary(FileDescriptorProtoSchema, bytes);
    const scope = file.package === '' ? '' : `${file.package}.`;
    const visit = (prefix: string, m: (typeof file.messageType)[number]): void => {
      const name = `${prefix}${m.name}`;
      out.push(name, ...m.field.map((f) => `${name}.${f.name}`));
      for (const nested of m.nestedType) visit(`${name}.`, nested);
      for (const e of m.enumType) out.push(`${name}.${e.name}`);
    };
    for (const m of file.messageType) visit(scope, m);
    for (const e of file.enumType) out.push(`${scope}${e.name}`, ...e.value.map((v) => `${scope}${e.name}.${v.name}`));
    for (const s of file.service) out.push(`${scope}${s.name}`, ...s.method.map((m) => `${scope}${s.name}.${m.name}`));
  }
  return out;
}

/** At most `count` of `items`, spread evenly (descriptor.proto alone has hundreds of symbols). */
function spread<T>(items: readonly T[], count: number): T[] {
  const step = Math.max(1, Math.ceil(items.length / count));
  return items.filter((_, i) => i % step === 0);
}

const sources = {
  'generated UserService': () => reflectionEntry(UserServiceDescriptor) as Record<string, unknown>,
  'proto/user.proto loaded at run time': () =>
    loadSync(path.join(__dirname, '..', '..', 'proto', 'user.proto'), { includeDirs: [path.join(__dirname, '..', '..', 'cli', 'protos'), path.dirname(require.resolve('google-proto-files/package.json'))] }) as Record<string, unknown>,
};

describe.each(Object.entries(sources))('reflection over the %s', (_name, load) => {
  const source = load();
  const ours = captureOurs(new ReflectionService(source));
  const theirs = capture(new GrpcReflection(source as never));
  const files = Object.values(source).flatMap((e) => ((e as { fileDescriptorProtos?: Uint8Array[] }).fileDescriptorProtos ?? []) as Uint8Array[]);
  const names = [...new Set(files.map((b) => fromBinary(FileDescriptorProtoSchema, b).name))];
  const stored = new Map<string, Uint8Array>();
  for (const bytes of files) {
    const name = fromBinary(FileDescriptorProtoSchema, bytes).name;
    if (!stored.has(name)) stored.set(name, bytes);
  }
  const questions: Question[] = [
    [7, '*'],
    [7, ''],
    ...names.map((n): Question => [3, n]),
    [3, 'missing.proto'],
    ...spread([...new Set(symbolsOf(files))], 150).map((s): Question => [4, s]),
    [4, 'no.such.Symbol'],
    [6, 'user.User'],
    ['none'],
  ];

  it.each(['grpc.reflection.v1', 'grpc.reflection.v1alpha'])('%s answers as @grpc/reflection does', async (version) => {
    const methodPath = `/${version}.ServerReflection/ServerReflectionInfo`;
    const decode = (theirs.get(methodPath) as [Method, Handler])[0].responseDeserialize.bind(null);
    expect(questions.length).toBeGreaterThan(20);
    for (const [index, question] of questions.entries()) {
      const request = requestBytes(index % 3 === 0 ? 'localhost:50051' : '', question);
      const a = comparable(decode, await ask(ours, methodPath, request));
      const b = comparable(decode, await ask(theirs, methodPath, request));
      const context = `${version} ${JSON.stringify(question)}`;
      expect({ context, host: a.host, kind: a.kind, services: a.services, code: a.code }).toEqual({ context, host: b.host, kind: b.kind, services: b.services, code: b.code });
      if (b.files !== undefined) {
        // fw sends the stored bytes; protobufjs re-encodes and drops descriptor fields it does not know.
        expect({ context, first: a.files?.[0]?.name }).toEqual({ context, first: b.files[0]?.name });
        expect(Buffer.from(a.files?.[0]?.bytes ?? []).equals(Buffer.from(stored.get(b.files[0]?.name ?? '') ?? [0]))).toBe(true);
        expect({ context, names: b.files.map((f) => f.name).filter((n) => !a.files?.some((f) => f.name === n)) }).toEqual({ context, names: [] });
      }
    }
  });
});

describe('reflection of extensions (fw alone)', () => {
  it('finds google.api.http on MethodOptions and lists its number', async () => {
    const source = sources['proto/user.proto loaded at run time']();
    const ours = captureOurs(new ReflectionService(source));
    const methodPath = '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo';
    const decode = (capture(new GrpcReflection(source as never)).get(methodPath) as [Method, Handler])[0].responseDeserialize;
    const numbers = decode(await ask(ours, methodPath, requestBytes('', [6, 'google.protobuf.MethodOptions']))) as { allExtensionNumbersResponse?: { extensionNumber: number[] } };
    expect(numbers.allExtensionNumbersResponse?.extensionNumber).toContain(72295728);
    const writer = new BinaryWriter();
    writer.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string('google.protobuf.MethodOptions').tag(2, WireType.Varint).int32(72295728).join();
    const found = comparable(decode, await ask(ours, methodPath, Buffer.from(writer.finish())));
    const file = fromBinary(FileDescriptorProtoSchema, found.files?.[0]?.bytes ?? new Uint8Array());
    expect(file.extension.map((e) => [e.name, e.number])).toContainEqual(['http', 72295728]);
    // Its extendee's file comes with it, so a client can resolve MethodOptions.
    const sent = (found.files ?? []).map((f) => fromBinary(FileDescriptorProtoSchema, f.bytes));
    expect(sent.some((f) => f.messageType.some((m) => m.name === 'MethodOptions'))).toBe(true);
  });
});
