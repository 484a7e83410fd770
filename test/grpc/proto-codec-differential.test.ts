/**
 * fw's compiled binary codecs for proto-loaded services against
 * @grpc/proto-loader's own (protobufjs `toObject(decode())` and
 * `encode(fromObject())`), the codec they replace, on seeded random messages
 * of test/grpc/fixtures/codec: every scalar type at its extremes, lists,
 * maps over every compiled key type, oneofs, proto3 optional, proto2
 * defaults, recursion, well-known types, values in the lenient forms
 * fromObject takes (numbers as strings, bytes as base64 or arrays).
 *
 * For each message: the bytes proto-loader writes decode to the same object
 * (key order too); the bytes fw writes decode, by proto-loader, to what
 * proto-loader's own bytes decode to; cut-off bytes proto-loader refuses fw
 * refuses too, and what fw reads of them proto-loader reads alike; corrupted bytes never throw anything but an Error. Inputs
 * proto-loader refuses, fw refuses.
 *
 *   FW_CODEC_SEED=<n> FW_CODEC_CASES=<n> npx jest test/grpc/proto-codec-differential.test.ts
 */
import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { loadProtoDefinition, type ProtoDefinition } from 'fw/grpc';
import { loadRoot } from '../../runtime/grpc/proto-codec/load-package';
import { framedEncoderOf } from '../../runtime/grpc/proto-codec/framed-encoders';
import { isEnum, isMessage, type ReflectedField, type ReflectedRoot, type ReflectedType } from '../../runtime/grpc/proto-codec/reflection';
import { prng } from '../support/prng';

const FIXTURES = path.join(__dirname, 'fixtures', 'codec');
const PROTO = path.join(FIXTURES, 'codec.proto');
const SEED = Number(process.env.FW_CODEC_SEED ?? Date.now() % 1_000_000);
const CASES = Number(process.env.FW_CODEC_CASES ?? 1500);
const OPTIONS = { keepCase: false, longs: BigInt, enums: String, defaults: true, oneofs: true };

type Codec = { serialize: (value: unknown) => Buffer; deserialize: (bytes: Buffer) => unknown };
type Method = { requestSerialize: (v: unknown) => Buffer; requestDeserialize: (b: Buffer) => unknown; responseSerialize: (v: unknown) => Buffer };

const googleRoot = path.dirname(require.resolve('google-proto-files/package.json'));
const includeDirs = [FIXTURES, googleRoot];
const reference = protoLoader.loadSync(PROTO, { ...OPTIONS, includeDirs })['codec.Codec'] as unknown as Record<string, Method>;
const compiled = ((loadProtoDefinition(PROTO) as { codec: ProtoDefinition }).codec.Codec as unknown as { service: Record<string, Method> }).service;
const root = loadRoot(PROTO, { ...OPTIONS, includeDirs }) as ReflectedRoot;

function codecOf(methods: Record<string, Method>, name: string): Codec {
  const method = methods[name] as Method;
  return { serialize: method.requestSerialize, deserialize: method.requestDeserialize };
}

/** Random values of a message type, reflectively, around every type's edges. */
class Values {
  constructor(private readonly next: () => number) {}

  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }

  message(type: ReflectedType, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const oneofsSet = new Set<string>();
    for (const raw of type.fieldsArray) {
      const field = raw.resolve();
      if (!this.chance(depth === 0 ? 0.8 : 0.5)) continue;
      if (field.partOf !== null) {
        // One member per oneof: proto-loader writes every member it is given, the compiled decoder keeps the last.
        if (oneofsSet.has(field.partOf.name)) continue;
        oneofsSet.add(field.partOf.name);
      }
      // Fewer items deeper down: a recursive type would otherwise grow exponentially.
      if (field.repeated) out[field.name] = Array.from({ length: this.int(depth >= 2 ? 2 : 5) }, () => this.value(field, depth, 'item'));
      else if (field.map) out[field.name] = this.map(field, depth);
      else out[field.name] = this.chance(0.05) ? null : this.value(field, depth, 'single');
    }
    return out;
  }

  map(field: ReflectedField, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let i = this.int(depth >= 2 ? 2 : 4); i > 0; i -= 1) {
      const key = this.mapKey(field.keyType ?? 'string');
      const value = this.value(field, depth, 'entry');
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  mapKey(type: string): string {
    switch (type) {
      case 'string':
        return this.pick(['', 'a', 'key with spaces', 'ünï', '__proto__', String(this.int(1000))]);
      case 'bool':
        // proto-loader writes the key 'false' as true (a string is truthy): only 'true' is compared.
        return 'true';
      case 'uint32':
      case 'fixed32':
        return String(this.pick([0, 1, 4294967295, this.int(4294967296)]));
      default:
        return String(this.pick([0, -1, 2147483647, -2147483648, this.int(1_000_000) - 500_000]));
    }
  }

  value(field: ReflectedField, depth: number, context: 'single' | 'item' | 'entry'): unknown {
    const resolved = field.resolvedType;
    if (isMessage(resolved)) return depth >= 4 ? {} : this.message(resolved, depth + 1);
    if (isEnum(resolved)) {
      const names = Object.keys(resolved.values);
      const numbers = Object.values(resolved.values);
      // An unknown number is kept as a number; an unknown name is dropped (single) or the default (lists), as fromObject does.
      return this.pick([this.pick(names), this.pick(names), this.pick(numbers), 77, context === 'single' ? 'NOT_A_NAME' : this.pick(names)]);
    }
    return this.scalar(field.type);
  }

  scalar(type: string): unknown {
    switch (type) {
      case 'double':
        return this.pick([0, -0, NaN, Infinity, -Infinity, 1.5, -2.25, 5e-324, Number.MAX_VALUE, this.next() * 1e6 - 5e5, '3.5']);
      case 'float':
        return this.pick([0, -0, NaN, Infinity, -Infinity, 1.5, Math.fround(3.4e38), Math.fround(1e-45), Math.fround(this.next() * 1000)]);
      case 'int32':
      case 'sint32':
      case 'sfixed32':
        return this.pick([0, 1, -1, 2147483647, -2147483648, this.int(2 ** 32) - 2 ** 31, '42', 3.7]);
      case 'uint32':
      case 'fixed32':
        return this.pick([0, 1, 4294967295, this.int(2 ** 32), '7']);
      case 'int64':
      case 'sint64':
      case 'sfixed64':
        return this.pick([0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, this.big(true), '-123456789012345', 9007199254740991, -42]);
      case 'uint64':
      case 'fixed64':
        return this.pick([0n, 1n, 2n ** 64n - 1n, 2n ** 53n + 1n, 2n ** 32n, this.big(false), '18446744073709551615', 9007199254740991]);
      case 'bool':
        return this.pick([true, false]);
      case 'string':
        return this.string();
      case 'bytes':
        return this.bytes();
      default:
        throw new Error(`no generator for ${type}`);
    }
  }

  big(signed: boolean): bigint {
    const raw = (BigInt(this.int(2 ** 32)) << 32n) | BigInt(this.int(2 ** 32));
    return signed ? BigInt.asIntN(64, raw) : raw;
  }

  string(): string {
    const length = this.pick([0, 1, 5, 16, 17, 127, 128, 300]);
    const alphabet = this.pick(['abcXYZ019 _-', 'héllo wörld ñ', '日本語テキスト', '😀🎉 a', '\u0000\u007f\u0080\u07ff\u0800\uffff']);
    const chars = [...alphabet];
    let out = '';
    for (let i = 0; i < length; i += 1) out += this.pick(chars);
    if (this.chance(0.01)) out = 'x'.repeat(20_000);
    return out;
  }

  bytes(): unknown {
    const length = this.chance(0.01) ? 20_000 : this.pick([0, 1, 3, 16, 40, 200]);
    const data = Buffer.from(Array.from({ length }, () => this.int(256)));
    return this.pick([data, new Uint8Array(data), data.toString('base64'), [...data]]);
  }
}

function lookupType(name: string): ReflectedType {
  const found = root.lookup(name);
  if (!isMessage(found as ReflectedType)) throw new Error(`no message ${name}`);
  return found as ReflectedType;
}

function outcome(run: () => unknown): { threw: boolean; value?: unknown } {
  try {
    return { threw: false, value: run() };
  } catch {
    return { threw: true };
  }
}

/** A JSON text with bigints and byte arrays readable, to compare key order as well as values. */
function ordered(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

const SUBJECTS: { method: string; type: string }[] = [
  { method: 'Echo', type: 'codec.Everything' },
  { method: 'Tree', type: 'codec.Tree' },
  { method: 'Legacy', type: 'codec.legacy.Legacy' },
];

describe('compiled proto codecs against proto-loader', () => {
  it('are installed for types they reproduce, and not for required fields or Any', () => {
    for (const { method } of SUBJECTS) expect(compiled[method]?.requestSerialize).not.toBe(reference[method]?.requestSerialize);
    expect(compiled.Echo?.requestSerialize.toString()).toContain('encodeWith');
    expect(compiled.Required?.requestSerialize.toString()).not.toContain('encodeWith');
    expect(compiled.Any?.requestSerialize.toString()).not.toContain('encodeWith');
    const viaLoader = (loadProtoDefinition(PROTO, { codec: 'proto-loader' }) as { codec: ProtoDefinition }).codec.Codec as unknown as { service: Record<string, Method> };
    expect(viaLoader.service.Echo?.requestSerialize.toString()).not.toContain('encodeWith');
  });

  it(`decode and encode as proto-loader does on ${CASES} seeded messages (seed ${SEED})`, () => {
    const values = new Values(prng(SEED));
    for (let index = 0; index < CASES; index += 1) {
      const subject = SUBJECTS[index % SUBJECTS.length] as (typeof SUBJECTS)[number];
      const ref = codecOf(reference, subject.method);
      const fw = codecOf(compiled, subject.method);
      const input = values.message(lookupType(subject.type), 0);
      try {
        const refOut = outcome(() => ref.serialize(input));
        const fwOut = outcome(() => fw.serialize(input));
        expect(fwOut.threw).toBe(refOut.threw);
        if (refOut.threw) continue;
        const refBytes = refOut.value as Buffer;
        const fwBytes = fwOut.value as Buffer;
        const expected = ref.deserialize(refBytes);
        const decoded = fw.deserialize(refBytes);
        expect(decoded).toEqual(expected);
        expect(ordered(decoded)).toBe(ordered(expected));
        expect(ref.deserialize(fwBytes)).toEqual(expected);
        expect(fw.deserialize(fwBytes)).toEqual(expected);
        const framed = framedEncoderOf(fw.serialize)?.(input);
        expect(framed?.subarray(5)).toEqual(fwBytes);
        expect(framed?.readUInt32BE(1)).toBe(fwBytes.length);
        for (let cut = 0; cut < 3 && refBytes.length > 0; cut += 1) {
          const part = refBytes.subarray(0, values.int(refBytes.length));
          const a = outcome(() => ref.deserialize(part));
          const b = outcome(() => fw.deserialize(part));
          // protobufjs takes a string cut short as what is there; fw refuses it. What fw accepts, protobufjs reads alike.
          if (a.threw) expect(b.threw).toBe(true);
          if (!b.threw) expect(b.value).toEqual(a.value);
        }
        const corrupt = Buffer.from(fwBytes);
        if (corrupt.length > 0) corrupt[values.int(corrupt.length)] = values.int(256);
        try {
          fw.deserialize(corrupt);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      } catch (error) {
        (error as Error).message = `seed ${SEED}, case ${index} (${subject.type}): ${(error as Error).message}\ninput: ${ordered(input)}`;
        throw error;
      }
    }
  });

  it('refuse what proto-loader refuses', () => {
    const ref = codecOf(reference, 'Echo');
    const fw = codecOf(compiled, 'Echo');
    const bad: unknown[] = [
      [],
      null,
      'text',
      { scalars: 'not an object' },
      { lists: { rInt32: 5 } },
      { lists: { rScalars: [null] } },
      { maps: { mSfixed32Scalars: { 1: 'x' } } },
      { maps: 'nope' },
      { scalars: { fInt64: 1n }, lists: { rInt32: [1n] } },
    ];
    for (const input of bad) {
      expect(() => ref.serialize(input)).toThrow();
      expect(() => fw.serialize(input)).toThrow();
    }
  });

  it('take any value but an array for a type without fields, as proto-loader does (a handler of an Empty reply may return nothing)', () => {
    const ref = codecOf(reference, 'Nothing');
    const fw = codecOf(compiled, 'Nothing');
    expect(fw.serialize.toString()).toContain('encodeWith');
    for (const input of [undefined, null, {}, 'x', 5, { stray: 1 }]) expect(fw.serialize(input)).toEqual(ref.serialize(input));
    expect(() => fw.serialize([])).toThrow();
    expect(fw.deserialize(Buffer.alloc(0))).toEqual(ref.deserialize(Buffer.alloc(0)));
  });

  it('refuse malformed bytes with an Error: truncation, bad wire types, overlong varints, nesting past the limit', () => {
    const fw = codecOf(compiled, 'Tree');
    const cases = [
      Buffer.from([0x0a, 0x05, 0x61]), // a string longer than the message
      Buffer.from([0x0f]), // wire type 7
      Buffer.from([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), // an 11-byte varint
      Buffer.from([0x00]), // field number 0
      Buffer.from([0x0c]), // an end-group with no start
    ];
    for (const bytes of cases) expect(() => fw.deserialize(bytes)).toThrow(Error);
    let deep: Buffer = Buffer.alloc(0);
    for (let i = 0; i < 120; i += 1) deep = Buffer.concat([Buffer.from([0x1a]), varint(deep.length), deep]);
    expect(() => fw.deserialize(deep)).toThrow('maximum nesting depth exceeded');
  });
});

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
