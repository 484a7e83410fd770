/**
 * The one place where ts-proto's options are fixed. Every generated `x.ts`
 * depends on these choices, and so does the descriptor template, which wires
 * ts-proto's `encode/decode/fromJSON/toJSON/fromPartial` into the runtime's
 * MessageCodec. See docs/codegen.md "Messages and codecs" for the rationale.
 * The runtime reads ts-proto's objects directly too (runtime/validation/
 * ts-proto-shapes.ts): it expects these options and ts-proto's default
 * `snakeToCamel`, and keeps the trip through binary for codecs it does not
 * recognise.
 */

/** ts-proto option → value, rendered as the plugin parameter in this order. */
export const TS_PROTO_OPTIONS: ReadonlyArray<readonly [string, string]> = [
  // `import x from` for CommonJS dependencies, as tsconfig.base.json enables.
  ['esModuleInterop', 'true'],
  // 64-bit integers as bigint, as in @bufbuild/protobuf: no value loses a digit.
  ['forceLong', 'bigint'],
  // oneofs as discriminated unions `{ $case, value }`: the compiler checks exhaustiveness.
  ['oneof', 'unions'],
  // Services are described by fw-gen's descriptor, not by ts-proto.
  ['outputServices', 'false'],
  // google.protobuf.Timestamp as the message `{seconds: bigint, nanos}`: a Date drops nanoseconds.
  ['useDate', 'false'],
  ['outputEncodeMethods', 'true'],
  ['outputJsonMethods', 'true'],
  // fromPartial lets clients send partial requests (unset fields get defaults).
  ['outputPartialMethods', 'true'],
];

/**
 * Files ts-proto must not emit: they only carry options (annotations,
 * validation rules) and would otherwise pull descriptor.ts into the output.
 */
export const OPTION_ONLY_PROTOS: readonly string[] = [
  'google/protobuf/descriptor.proto',
  'google/api/annotations.proto',
  'google/api/http.proto',
  'buf/validate/validate.proto',
];

/** The CodeGeneratorRequest parameter string; `importSuffix` is `.js` for ES modules. */
export function tsProtoParameter(importSuffix = ''): string {
  const parts = TS_PROTO_OPTIONS.map(([k, v]) => `${k}=${v}`);
  if (importSuffix !== '') parts.push(`importSuffix=${importSuffix}`);
  for (const file of OPTION_ONLY_PROTOS) parts.push(`M${file}=./unused`);
  return parts.join(',');
}
