/**
 * The message gate's JSON, message type by message type, against
 * @bufbuild/protobuf: for every request and response type of the checked-in
 * generated services, seeded random messages written by the gate (`toJson`,
 * from the handler's ts-proto value) must be what protobuf-es writes, and
 * read by the gate (`fromJson`) must be the message protobuf-es reads. Both
 * of the gate's paths are covered: ts-proto's own JSON for the messages it
 * maps exactly, the writer compiled from the descriptor for the rest.
 *
 * FW_JSON_SEED=<n> replays a run (the seed is printed on failure);
 * FW_JSON_CASES=<n> writes and reads more messages per type than the default.
 */
import { equals, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import type { MessageCodec, ServiceDescriptor } from 'fw';
import { methodGates, type MessageGate } from '../../runtime/rpc/message-gate';
import { schemaSetOf } from '../../runtime/validation/schema-registry';
import { tsProtoJsonExact } from '../../runtime/validation/ts-proto-json';
import { UserServiceDescriptor } from '../../generated/user.fw';
import { UserServiceDescriptor as PlainUserServiceDescriptor } from '../bench/gateway/generated/plain_user.fw';
import { ConformanceProtoDescriptor } from '../conformance/generated/conformance.fw';
import { TestServiceDescriptor } from '../interop/grpc/generated/src/proto/grpc/testing/test.fw';
import { prng } from '../support/prng';
import { randomMessage } from './support/random-messages';

const SEED = process.env['FW_JSON_SEED'] !== undefined ? Number(process.env['FW_JSON_SEED']) : Math.floor(Math.random() * 2 ** 31);
const PER_TYPE = Number(process.env['FW_JSON_CASES'] ?? 40);

interface Target {
  readonly name: string;
  readonly gate: MessageGate;
  readonly schema: DescMessage;
  readonly codec: MessageCodec<unknown>;
}

function targetsOf(descriptor: ServiceDescriptor): Target[] {
  const set = schemaSetOf(descriptor.fileDescriptorProtos ?? []);
  if (set === undefined) throw new Error(`${descriptor.typeName}: no registry`);
  const out: Target[] = [];
  for (const md of Object.values(descriptor.methods)) {
    const gates = methodGates(descriptor, md);
    if (gates === undefined) throw new Error(`${md.path}: no gates`);
    for (const [typeName, gate, codec] of [[md.requestType, gates.request, md.requestCodec], [md.responseType, gates.response, md.responseCodec]] as const) {
      const schema = set.registry.getMessage(typeName);
      if (schema === undefined) throw new Error(`${typeName} missing`);
      out.push({ name: `${md.path} ${typeName}`, gate, schema, codec });
    }
  }
  return out;
}

const TARGETS = [UserServiceDescriptor, PlainUserServiceDescriptor, ConformanceProtoDescriptor, TestServiceDescriptor].flatMap(targetsOf);
const asParsedJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null') as unknown;

describe('the message gate writes and reads JSON as @bufbuild/protobuf does', () => {
  it('covers both paths: messages ts-proto maps exactly and messages it does not', () => {
    expect(TARGETS.some((t) => tsProtoJsonExact(t.schema))).toBe(true);
    expect(TARGETS.some((t) => !tsProtoJsonExact(t.schema))).toBe(true);
  });

  it.each(TARGETS.map((t) => [t.name, t] as const))('%s', (_name, t) => {
    const set = schemaSetOf(UserServiceDescriptor.fileDescriptorProtos ?? []);
    const registry = set?.typeRegistry;
    if (registry === undefined) throw new Error('no registry');
    const rand = prng(SEED ^ t.name.length);
    for (let i = 0; i < PER_TYPE; i++) {
      const where = `seed ${SEED} (replay with FW_JSON_SEED=${SEED}), ${t.name} #${i}`;
      const message = randomMessage(rand, t.schema, { maxDepth: 4, fill: 0.5, hugeStrings: 0, registry });
      const expected = toJson(t.schema, message, { registry });
      const value = t.codec.decode(toBinary(t.schema, message));
      expect({ where, json: asParsedJson(t.gate.toJson(value)) }).toEqual({ where, json: asParsedJson(expected) });
      const sent = asParsedJson(expected) as JsonValue;
      const read = fromBinary(t.schema, t.codec.encode(t.gate.fromJson(sent)));
      const want = fromJson(t.schema, sent, { registry });
      // `equals` counts NaN as unequal to itself: the same bytes are the same message too.
      const same = equals(t.schema, read, want) || Buffer.from(toBinary(t.schema, read)).equals(Buffer.from(toBinary(t.schema, want)));
      expect({ where, equal: same }).toEqual({ where, equal: true });
    }
  });
});
