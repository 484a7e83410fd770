/**
 * The message types the JSON differential tests run over: every request and
 * response type of the conformance suite's TestAllTypesProto3 echo and of
 * the checked-in generated services, each with its ts-proto codec and the
 * registry its Any values resolve in. Also the seed and case count they share.
 */
import type { DescMessage, Registry } from '@bufbuild/protobuf';
import type { MessageCodec, ServiceDescriptor } from 'fw';
import { schemaSetOf } from '../../../runtime/validation/schema-registry';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { UserServiceDescriptor as PlainUserServiceDescriptor } from '../../bench/gateway/generated/plain_user.fw';
import { UserEchoDescriptor } from '../../bench/gateway/generated/user_echo.fw';
import { ConformanceProtoDescriptor } from '../../conformance/generated/conformance.fw';
import { TestServiceDescriptor } from '../../interop/grpc/generated/src/proto/grpc/testing/test.fw';
import { AllTypesEchoDescriptor } from '../generated/all_types_echo.fw';

/** FW_JSON_SEED=<n> replays a run (the tests print the seed on failure). */
export const SEED = process.env['FW_JSON_SEED'] !== undefined ? Number(process.env['FW_JSON_SEED']) : Math.floor(Math.random() * 2 ** 31);
/** FW_JSON_CASES=<n>: more random messages per type than the default. */
export const CASES = Number(process.env['FW_JSON_CASES'] ?? 300);

export interface Target {
  readonly name: string;
  readonly schema: DescMessage;
  readonly codec: MessageCodec<unknown>;
  readonly registry: Registry;
}

function targetsOf(descriptor: ServiceDescriptor): Target[] {
  const set = schemaSetOf(descriptor.fileDescriptorProtos ?? []);
  if (set === undefined) throw new Error(`${descriptor.typeName}: no registry`);
  const out = new Map<string, Target>();
  for (const md of Object.values(descriptor.methods)) {
    for (const [typeName, codec] of [[md.requestType, md.requestCodec], [md.responseType, md.responseCodec]] as const) {
      const schema = set.registry.getMessage(typeName);
      if (schema === undefined) throw new Error(`${typeName} missing`);
      if (!out.has(typeName)) out.set(typeName, { name: typeName, schema, codec, registry: set.typeRegistry });
    }
  }
  return [...out.values()];
}

export const TARGETS: readonly Target[] = [AllTypesEchoDescriptor, UserServiceDescriptor, PlainUserServiceDescriptor, UserEchoDescriptor, ConformanceProtoDescriptor, TestServiceDescriptor].flatMap(targetsOf);

/** protobuf_test_messages.proto3.TestAllTypesProto3. */
export const allTypes = TARGETS.find((t) => t.name === 'protobuf_test_messages.proto3.TestAllTypesProto3') as Target;

/**
 * A value with its properties in order, so that toEqual compares order too;
 * -0, Maps and bytes spelled out.
 */
export function shape(value: unknown): unknown {
  if (Object.is(value, -0)) return '-0';
  if (value instanceof Uint8Array) return ['bytes', ...value];
  if (value instanceof Map) return ['Map', ...[...value].map(([k, v]) => [k, shape(v)])];
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object') return Object.keys(value).map((k) => [k, shape((value as Record<string, unknown>)[k])]);
  return value;
}
