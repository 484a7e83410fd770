/**
 * Builds grpc-js method definitions for everything the gateway serves over
 * gRPC: generated services use their descriptors' binary codecs (so any gRPC
 * client with the real .proto works), inline services a JSON codec
 * (`application/grpc+json`, path `/<Service>/<method>`), and
 * `configureGRPC({protoFiles, services, methodMapping})` the proto-loader
 * codecs of those files (64-bit integers as bigint, gRPC+JSON through the
 * canonical JSON writer, proto-file-json.ts), routed to the mapped gateway
 * methods.
 */
import { jsonTextTooDeep, RejectedPayload, TOO_DEEP_MESSAGE } from '../../core/json-depth';
import type { MethodDefinition } from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { protoLoader } from '../../grpc/grpc-js-peer';
import { checkBigintLongs, PROTO_LOADER_OPTIONS } from '../../grpc/proto-loader-options';
import { loadPackage } from '../../grpc/proto-codec/load-package';
import type { StreamingMode } from '../../rpc/descriptor';
import type { MethodGates } from '../../rpc/message-gate';
import type { ServiceRegistry } from '../../rpc/registry';
import { JsonReply, jsonDeserializer, sniffingDeserializer } from './message-format';
import { RawMessage } from '../pass-through';

/** `configureGRPC(config)` (spec 4.10). */
export interface GrpcGatewayConfig {
  /** .proto files whose services are served and mapped onto gateway services. */
  protoFiles?: string[];
  /** Qualified proto service name → gateway service name (`'user.UserService': 'UserService'`). */
  services?: Record<string, string>;
  /** Proto method name → gateway method name (`GetUser: 'getUser'`). */
  methodMapping?: Record<string, string>;
  /** Proto request → gateway request. */
  transformRequest?: (protoRequest: unknown, methodName: string) => unknown;
  /** Gateway result → proto response. */
  transformResponse?: (serviceResult: unknown, methodName: string) => unknown;
  /** Include paths for proto imports. */
  includeDirs?: string[];
}

/** One gRPC method the transport registers. */
export interface GrpcRoute {
  service: string;
  method: string;
  streaming: StreamingMode;
  definition: MethodDefinition<unknown, unknown>;
  /** proto-loader route: configureGRPC transforms apply. */
  mapped: boolean;
  /** A proto-loader route's reply as canonical proto3 JSON (its file's descriptors), for gRPC+JSON requests. */
  toJSON?: (value: unknown) => unknown;
}

/** A grpc-js service definition keyed by method, plus the routes behind it. */
export interface GrpcServiceTable {
  name: string;
  routes: Map<string, GrpcRoute>;
}

function modeOf(requestStream: boolean, responseStream: boolean): StreamingMode {
  if (requestStream && responseStream) return 'bidirectional';
  if (requestStream) return 'client';
  if (responseStream) return 'server';
  return 'none';
}

function streamsOf(mode: StreamingMode): { requestStream: boolean; responseStream: boolean } {
  return { requestStream: mode === 'client' || mode === 'bidirectional', responseStream: mode === 'server' || mode === 'bidirectional' };
}

const jsonSerialize = (value: unknown): Buffer => Buffer.from(JSON.stringify(value ?? {}));
/** Too-deep JSON becomes a RejectedPayload (answered INVALID_ARGUMENT by the transport): grpc-js turns a throwing deserializer into INTERNAL. */
const jsonDeserialize = (bytes: Buffer): unknown => {
  if (bytes.length === 0) return {};
  const text = bytes.toString('utf8');
  return jsonTextTooDeep(text) ? new RejectedPayload(TOO_DEEP_MESSAGE) : JSON.parse(text);
};
const fromJsonIdentity = (json: unknown): unknown => json;
const keepBytes = (bytes: Uint8Array): RawMessage => new RawMessage(bytes as Buffer);

/** Services from the registry. */
export function registryTables(registry: ServiceRegistry): GrpcServiceTable[] {
  const tables: GrpcServiceTable[] = [];
  for (const service of registry.services()) {
    const routes = new Map<string, GrpcRoute>();
    for (const m of service.methods) {
      const md = m.descriptor;
      if (md !== undefined) {
        const s = streamsOf(md.streaming);
        routes.set(md.name, {
          service: service.name,
          method: m.method,
          streaming: md.streaming,
          mapped: false,
          definition: {
            path: md.path,
            ...s,
            requestSerialize: (v: unknown) => Buffer.from(md.requestCodec.encode(v)),
            // Binary requests of a method that may forward bytes stay bytes; the transport decodes them when it does not (pass-through.ts).
            requestDeserialize: sniffingDeserializer(m.fromJSON ?? fromJsonIdentity, m.passThrough !== undefined ? keepBytes : (m.fromBinary ?? ((b) => md.requestCodec.decode(b)))),
            responseSerialize: (v: unknown) => (v instanceof RawMessage ? v.bytes : v instanceof JsonReply ? v.bytes : Buffer.from(md.responseCodec.encode(v))),
            responseDeserialize: (b: Buffer) => md.responseCodec.decode(b),
            originalName: m.method,
          },
        });
        continue;
      }
      const names = new Set([m.method, m.method.charAt(0).toUpperCase() + m.method.slice(1)]);
      for (const name of names) {
        routes.set(name, {
          service: service.name,
          method: m.method,
          streaming: m.streaming,
          mapped: false,
          definition: {
            path: `/${service.name}/${name}`,
            ...streamsOf(m.streaming),
            requestSerialize: jsonSerialize,
            requestDeserialize: jsonDeserializer,
            responseSerialize: jsonSerialize,
            responseDeserialize: jsonDeserialize,
          },
        });
      }
    }
    tables.push({ name: service.descriptor?.typeName ?? service.name, routes });
  }
  return tables;
}

/** Loads `protoFiles` (proto-loader: camelCase fields, 64-bit integers as bigint) and maps them onto gateway services. */
export function protoTables(config: GrpcGatewayConfig): { tables: GrpcServiceTable[]; packageDefinition: PackageDefinition | undefined } {
  if (config.protoFiles === undefined || config.protoFiles.length === 0) return { tables: [], packageDefinition: undefined };
  const feature = 'configureGRPC({ protoFiles })';
  const loader = protoLoader(feature);
  const options = { ...PROTO_LOADER_OPTIONS, includeDirs: config.includeDirs };
  checkBigintLongs(loader, options, feature);
  const packageDefinition = loadPackage(loader, config.protoFiles, options);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { protoFileGates } = require('./proto-file-json') as typeof import('./proto-file-json');
  const tables: GrpcServiceTable[] = [];
  for (const [qualified, value] of Object.entries(packageDefinition)) {
    if (!isServiceDefinition(value)) continue;
    const gatewayService = config.services?.[qualified] ?? qualified.split('.').pop() ?? qualified;
    if (config.services !== undefined && config.services[qualified] === undefined) continue;
    const routes = new Map<string, GrpcRoute>();
    for (const [protoMethod, def] of Object.entries(value)) {
      const method = config.methodMapping?.[protoMethod] ?? protoMethod.charAt(0).toLowerCase() + protoMethod.slice(1);
      const gates = protoFileGates(def);
      routes.set(protoMethod, {
        service: gatewayService,
        method,
        streaming: modeOf(def.requestStream, def.responseStream),
        mapped: true,
        definition: gates === undefined ? def : withJson(def, gates),
        ...(gates === undefined ? {} : { toJSON: (reply: unknown) => gates.response.toJson(reply) }),
      });
    }
    tables.push({ name: qualified, routes });
  }
  return { tables, packageDefinition };
}

/** A proto-loader method that also takes gRPC+JSON requests (sniffed, message-format.ts) and sends JSON replies as they come. */
function withJson(def: MethodDefinition<unknown, unknown>, gates: MethodGates): MethodDefinition<unknown, unknown> {
  return {
    ...def,
    requestDeserialize: sniffingDeserializer((json) => gates.request.fromJson(json), (bytes) => def.requestDeserialize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))),
    responseSerialize: (v: unknown) => (v instanceof JsonReply ? v.bytes : def.responseSerialize(v)),
  };
}

function isServiceDefinition(value: unknown): value is Record<string, MethodDefinition<unknown, unknown>> {
  if (value === null || typeof value !== 'object' || 'format' in value) return false;
  const first = Object.values(value)[0] as { path?: unknown } | undefined;
  return first !== undefined && typeof first.path === 'string';
}
