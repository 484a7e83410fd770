/**
 * How fw reads `.proto` files at run time (`loadProtoDefinition`,
 * `configureGRPC({protoFiles})`): through @grpc/proto-loader, with the
 * values in the shapes generated code and @bufbuild/protobuf give them, so a
 * handler sees the same int64 however its service was registered.
 */
import type { MessageTypeDefinition, Options } from '@grpc/proto-loader';
import type { ProtoLoaderModule } from './grpc-js-peer';

/**
 * camelCase fields, enums as names, defaults filled, the set member of each
 * oneof named; 64-bit integers as `bigint` (every value of the full range
 * exact, as in generated code). Timestamp and Duration are then
 * `{ seconds: bigint, nanos: number }` in both forms.
 */
export const PROTO_LOADER_OPTIONS: Options = { keepCase: false, longs: BigInt, enums: String, defaults: true, oneofs: true };

/** int64's largest value: a protobufjs without bigint support does not read it back. */
const PROBE = 2n ** 63n - 1n;

/** Loaders found to read bigint: the probe runs once per loader. */
const bigintLoaders = new WeakSet<ProtoLoaderModule>();

/**
 * Throws when the protobufjs behind proto-loader cannot read and write
 * 64-bit integers as `bigint` (`longs: BigInt` came with protobufjs 7.6): an
 * older one would hand handlers Long objects and write a bigint as 0.
 */
export function checkBigintLongs(loader: ProtoLoaderModule, options: Options, feature: string): void {
  if (options.longs !== BigInt || bigintLoaders.has(loader)) return;
  let value: unknown;
  try {
    const probe = loader.fromJSON({ nested: { Probe: { fields: { v: { type: 'int64', id: 1 } } } } }, options)['Probe'] as MessageTypeDefinition<object, { v?: unknown }>;
    value = probe.deserialize(probe.serialize({ v: PROBE })).v;
  } catch {
    value = undefined;
  }
  if (value !== PROBE) {
    throw new Error(`${feature} reads 64-bit integers as bigint, which needs protobufjs 7.6 or later under @grpc/proto-loader: npm install protobufjs@^7.6`);
  }
  bigintLoaders.add(loader);
}
