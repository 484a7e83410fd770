/**
 * `loadProtoDefinition(path)`: a `.proto` file loaded through
 * @grpc/proto-loader into grpc-js's object tree, for the `{definition,
 * implementation}` form of `addService` (spec 4.6) and for `createGrpcClient`.
 * The package definition behind each service is remembered so reflection can
 * describe it. @grpc/proto-loader and @grpc/grpc-js are optional peers,
 * loaded by the first call.
 */
import type { GrpcObject, ServiceClientConstructor, ServiceDefinition } from '@grpc/grpc-js';
import type { Options, PackageDefinition } from '@grpc/proto-loader';
import path from 'node:path';
import { MissingPeerError } from '../core/optional-peer';
import { grpcJs, protoLoader } from './grpc-js-peer';
import { checkBigintLongs, PROTO_LOADER_OPTIONS } from './proto-loader-options';
import { loadPackage, type ProtoCodecChoice } from './proto-codec/load-package';

/**
 * proto-loader's options, plus `codec`: 'compiled' (the default) gives the
 * services fw's compiled binary codecs, 'proto-loader' keeps proto-loader's.
 */
export interface ProtoLoadOptions extends Options {
  codec?: ProtoCodecChoice;
}

/** A loaded proto file: namespaces down to service constructors (`def.user.UserService`). */
export type ProtoDefinition = GrpcObject;

/** What `addService({definition})` and `createGrpcClient({service})` accept from a loaded proto. */
export type ProtoServiceSource = ProtoDefinition | ServiceClientConstructor | ServiceDefinition;

/** A proto service resolved to its full name, methods and package definition. */
export interface ResolvedProtoService {
  /** `user.UserService` */
  name: string;
  methods: ServiceDefinition;
  packageDefinition: PackageDefinition | undefined;
}

const packageOf = new WeakMap<object, PackageDefinition>();

/**
 * Loads `filePath` (and its imports; google/api and google/protobuf protos are found automatically).
 * Messages have camelCase fields, enums as names, defaults filled and 64-bit
 * integers as `bigint`, as in generated code (`options` may change them).
 *
 * @example
 * import { loadProtoDefinition } from 'fw/grpc';
 * const proto = loadProtoDefinition('proto/user.proto');
 * app.addService({ definition: proto.user.UserService, implementation: { GetUser: async (call) => ({ id: call.request.id }) } });
 */
export function loadProtoDefinition(filePath: string, options: ProtoLoadOptions = {}): ProtoDefinition {
  const googleRoot = googleProtoRoot();
  const { codec, ...rest } = options;
  const includeDirs = [path.dirname(path.resolve(filePath)), ...(googleRoot === undefined ? [] : [googleRoot]), ...(rest.includeDirs ?? [])];
  const loaderOptions: Options = { ...PROTO_LOADER_OPTIONS, ...rest, includeDirs };
  const loader = protoLoader('loadProtoDefinition()');
  checkBigintLongs(loader, loaderOptions, 'loadProtoDefinition()');
  let packageDefinition: PackageDefinition;
  try {
    packageDefinition = loadPackage(loader, path.resolve(filePath), loaderOptions, codec);
  } catch (error) {
    // google/protobuf's common types are built into protobufjs; google/api and the rest come from google-proto-files.
    if (googleRoot === undefined && /google\/(?!protobuf\/)[\w/]+\.proto/.test(String((error as Error).message))) {
      throw new MissingPeerError('google-proto-files', `loadProtoDefinition('${filePath}'), which imports google/api protos,`);
    }
    throw error;
  }
  const root = grpcJs('loadProtoDefinition()').loadPackageDefinition(packageDefinition);
  packageOf.set(root, packageDefinition);
  for (const key of Object.keys(packageDefinition)) {
    const entry = packageDefinition[key];
    if (entry !== undefined && !('format' in entry)) packageOf.set(entry, packageDefinition);
  }
  return root;
}

/** Finds the one service `source` stands for; throws a TypeError explaining what was expected otherwise. */
export function resolveProtoService(source: ProtoServiceSource): ResolvedProtoService {
  if (typeof source === 'function' && 'service' in source) {
    const ctor = source as ServiceClientConstructor;
    // grpc-js sets `serviceName` to the short name; the method paths carry the full one.
    return { name: serviceNameFromMethods(ctor.service), methods: ctor.service, packageDefinition: packageOf.get(ctor.service) };
  }
  if (isServiceDefinition(source)) {
    return { name: serviceNameFromMethods(source), methods: source, packageDefinition: packageOf.get(source) };
  }
  const found: ServiceClientConstructor[] = [];
  collectServices(source as GrpcObject, found, 0);
  if (found.length === 1) return resolveProtoService(found[0] as ServiceClientConstructor);
  const names = found.map((s) => s.serviceName).join(', ');
  throw new TypeError(
    found.length === 0
      ? 'definition holds no service: pass a service from loadProtoDefinition(), e.g. proto.user.UserService'
      : `definition holds several services (${names}): pass one, e.g. proto.${found[0]?.serviceName ?? ''}`,
  );
}

/** The package definition registered for `value` by loadProtoDefinition, if any. */
export function packageDefinitionOf(value: object): PackageDefinition | undefined {
  return packageOf.get(value);
}

/** Remembers the package definition of services fw loads itself (health). */
export function rememberPackageDefinition(value: object, packageDefinition: PackageDefinition): void {
  packageOf.set(value, packageDefinition);
}

function isServiceDefinition(value: unknown): value is ServiceDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const first = Object.values(value)[0] as { path?: unknown } | undefined;
  return first !== undefined && typeof first === 'object' && first !== null && typeof first.path === 'string' && 'requestStream' in first;
}

function serviceNameFromMethods(methods: ServiceDefinition): string {
  const first = Object.values(methods)[0] as { path: string };
  return first.path.split('/')[1] ?? '';
}

function collectServices(node: GrpcObject, out: ServiceClientConstructor[], depth: number): void {
  if (depth > 32) return;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (typeof value === 'function' && 'service' in value) out.push(value as ServiceClientConstructor);
    else if (typeof value === 'object' && value !== null && !('format' in value)) collectServices(value as GrpcObject, out, depth + 1);
  }
}

/** google-proto-files' root (google/api/*.proto, google/protobuf/*.proto), when installed: an optional peer of fw. */
function googleProtoRoot(): string | undefined {
  try {
    return path.dirname(require.resolve('google-proto-files/package.json'));
  } catch {
    return undefined;
  }
}
