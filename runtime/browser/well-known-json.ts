/**
 * Canonical proto3 JSON of the well-known types whose JSON ts-proto's
 * browser messages get wrong (Duration, FieldMask, BytesValue), called by
 * the generated `x.browser-messages.ts` in place of ts-proto's own
 * functions: what @bufbuild/protobuf's `toJson` writes and `fromJson` reads,
 * without bundling its descriptors and reflection (which would more than
 * double a browser client). Name conversion and base64 are
 * @bufbuild/protobuf's own.
 */
import { protoCamelCase, protoSnakeCase } from '@bufbuild/protobuf/reflect';
import { base64Decode, base64Encode } from '@bufbuild/protobuf/wire';

/** A Duration as generated code has it. */
export interface DurationValue {
  seconds: bigint;
  nanos: number;
}

/** ±10,000 years. */
const DURATION_SECONDS_MAX = 315576000000n;

const DURATION_TEXT = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/;

/** 0, 3, 6 or 9 fraction digits of `nanos` (0 ≤ nanos < 10⁹), as protobuf writes them. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (digits.endsWith('000000')) return `.${digits.slice(0, 3)}`;
  if (digits.endsWith('000')) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

/** A Duration as seconds with an `s`: `"1.5s"`, `"-0.000000001s"`. */
export function durationToJson(value: DurationValue): string {
  const { seconds, nanos } = value;
  if (seconds > DURATION_SECONDS_MAX || seconds < -DURATION_SECONDS_MAX) throw new RangeError('Duration is outside ±315576000000 seconds');
  if (!Number.isInteger(nanos) || Math.abs(nanos) > 999_999_999 || (seconds > 0n && nanos < 0) || (seconds < 0n && nanos > 0)) {
    throw new RangeError('Duration nanos must be an integer below 10^9 with the sign of seconds');
  }
  const sign = seconds === 0n && nanos < 0 ? '-' : '';
  return `${sign}${seconds}${fraction(Math.abs(nanos))}s`;
}

/** `"1.5s"` as a Duration. */
export function durationFromJson(json: unknown): DurationValue {
  const match = typeof json === 'string' ? DURATION_TEXT.exec(json) : null;
  if (match === null) throw new TypeError(`not a Duration: ${JSON.stringify(json)}`);
  const negative = match[1] === '-';
  const seconds = BigInt(match[2] as string);
  if (seconds > DURATION_SECONDS_MAX) throw new RangeError(`Duration out of range: ${json as string}`);
  const nanos = Number((match[3] ?? '').padEnd(9, '0'));
  // `-0s` is 0; a zero nanos stays +0.
  return { seconds: negative ? -seconds : seconds, nanos: negative && nanos !== 0 ? -nanos : nanos };
}

/** FieldMask paths (snake_case) as its JSON: lowerCamelCase, joined by commas. */
export function fieldMaskToJson(paths: readonly string[]): string {
  return paths
    .map((path) => {
      const camel = protoCamelCase(path);
      if (protoSnakeCase(camel) !== path) throw new RangeError(`FieldMask path "${path}" has no lowerCamelCase form`);
      return camel;
    })
    .join(',');
}

/** FieldMask JSON as its paths. */
export function fieldMaskFromJson(json: unknown): string[] {
  if (typeof json !== 'string') throw new TypeError(`not a FieldMask: ${JSON.stringify(json)}`);
  if (json === '') return [];
  return json.split(',').map((path) => {
    if (path.includes('_')) throw new TypeError(`FieldMask path "${path}" is not lowerCamelCase`);
    return protoSnakeCase(path);
  });
}

/** A BytesValue (or bytes) as standard base64. */
export function bytesToJson(bytes: Uint8Array): string {
  return base64Encode(bytes);
}

/** Standard or URL-safe base64, padded or not, as bytes. */
export function bytesFromJson(json: unknown): Uint8Array {
  if (typeof json !== 'string') throw new TypeError(`not base64: ${JSON.stringify(json)}`);
  return base64Decode(json);
}
