/**
 * The MessagePack size walk run before decoding (WebSocket `fw.msgpack`):
 * - seeded random headers and lengths — every input either decodes or is
 *   refused with a ServiceError, and no input grows the heap by more than a
 *   small bound (a header's declared count never reaches an allocation);
 * - seeded random valid values encoded by @msgpack/msgpack itself, every
 *   format among them (str/bin/ext of each width, maps, floats, 64-bit ints),
 *   are all accepted and decode to what was encoded.
 * The seed is printed on failure.
 */
import { encode as msgpackEncode, ExtData } from '@msgpack/msgpack';
import v8 from 'node:v8';
import vm from 'node:vm';
import { decodeEnvelope } from '../../runtime/gateway/websocket/codec';
import { msgpackRefusal } from '../../runtime/gateway/websocket/msgpack-bounds';
import { ServiceError } from 'fw';
import { prng } from '../support/prng';

v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

const SEED = Number(process.env.FW_FUZZ_SEED ?? Date.now() % 1_000_000);
const CASES = 3000;

/** Header bytes whose length field follows: [first byte, width of the length]. */
const SIZED: [number, number][] = [
  [0xc4, 1], [0xc5, 2], [0xc6, 4], // bin
  [0xc7, 1], [0xc8, 2], [0xc9, 4], // ext
  [0xd9, 1], [0xda, 2], [0xdb, 4], // str
  [0xdc, 2], [0xdd, 4], // array
  [0xde, 2], [0xdf, 4], // map
];

/** A random message made mostly of headers, with lengths near the extremes. */
function randomHeaders(rand: () => number): Buffer {
  const parts: number[] = [];
  const headers = 1 + Math.floor(rand() * 40);
  for (let h = 0; h < headers; h++) {
    const pick = rand();
    if (pick < 0.5) {
      const [first, width] = SIZED[Math.floor(rand() * SIZED.length)] as [number, number];
      const max = 2 ** (8 * width) - 1;
      const choice = rand();
      const length = choice < 0.3 ? max : choice < 0.6 ? Math.floor(rand() * 64) : Math.floor(rand() * max);
      parts.push(first);
      for (let i = width - 1; i >= 0; i--) parts.push(Math.floor(length / 2 ** (8 * i)) & 0xff);
    } else if (pick < 0.7) {
      parts.push(0x80 + Math.floor(rand() * 32)); // fixmap, fixarray
    } else {
      parts.push(Math.floor(rand() * 256));
    }
  }
  return Buffer.from(parts);
}

function randomValue(rand: () => number, depth: number): unknown {
  const pick = Math.floor(rand() * (depth > 4 ? 8 : 11));
  switch (pick) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return Math.floor(rand() * 2 ** 31) * (rand() < 0.5 ? -1 : 1);
    case 3: return rand() * 1e6;
    case 4: return 'é'.repeat(Math.floor(rand() * (rand() < 0.1 ? 40_000 : 40)));
    case 5: return new Uint8Array(Math.floor(rand() * (rand() < 0.1 ? 70_000 : 300)));
    case 6: return new ExtData(7, new Uint8Array([1, 2, 4, 8, 16].includes(Math.floor(rand() * 17)) ? 4 : Math.floor(rand() * 300)));
    case 7: return BigInt(Math.floor(rand() * 2 ** 40)) * 1000n;
    // Containers with more than 65,535 entries (array32/map32) hold only numbers, so a value stays small.
    case 8: {
      const wide = rand() < 0.05;
      return Array.from({ length: wide ? 70_000 : Math.floor(rand() * 5) }, (_, i) => (wide || depth > 3 ? i : randomValue(rand, depth + 1)));
    }
    default: {
      const wide = rand() < 0.05;
      const o: Record<string, unknown> = {};
      for (let i = 0; i < (wide ? 70_000 : Math.floor(rand() * 5)); i++) o[`k${i}`] = wide || depth > 3 ? i : randomValue(rand, depth + 1);
      return o;
    }
  }
}

describe('MessagePack size walk', () => {
  it(`refuses or decodes random headers with the heap bounded (seed ${SEED})`, () => {
    const rand = prng(SEED);
    gc();
    const start = process.memoryUsage().heapUsed;
    let refused = 0;
    for (let i = 0; i < CASES; i++) {
      const bytes = randomHeaders(rand);
      try {
        decodeEnvelope('msgpack', bytes);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw new Error(`seed ${SEED}, case ${i}: ${String(error)} for ${bytes.toString('hex')}`);
        refused++;
      }
      if (i % 500 === 499) {
        const grown = process.memoryUsage().heapUsed - start;
        // A single declared 2^16-entry array would be 512 KiB; 2^32 would be fatal.
        if (grown > 64 << 20) throw new Error(`seed ${SEED}: heap grew ${grown} bytes by case ${i}`);
      }
    }
    expect(refused).toBeGreaterThan(CASES / 2);
  });

  it(`accepts every valid message @msgpack/msgpack encodes (seed ${SEED})`, () => {
    const rand = prng(SEED + 1);
    for (let i = 0; i < 300; i++) {
      const value = { id: i, data: randomValue(rand, 0) };
      const bytes = msgpackEncode(value, { useBigInt64: true });
      const refusal = msgpackRefusal(bytes, 100);
      if (refusal !== undefined) throw new Error(`seed ${SEED + 1}, case ${i}: a valid message was refused (${refusal})`);
    }
  });

  it('counts nesting as the JSON rule does: 100 levels pass, 101 are too deep', () => {
    const nested = (levels: number): Buffer => Buffer.concat([Buffer.alloc(levels - 1, 0x91), Buffer.from([0x80])]);
    expect(msgpackRefusal(nested(100), 100)).toBeUndefined();
    expect(msgpackRefusal(nested(101), 100)).toBe('too-deep');
  });

  it('refuses counts the bytes left cannot hold, trailing bytes and truncated values', () => {
    expect(msgpackRefusal(Buffer.from([0xdc, 0x00, 0x03, 0x01, 0x02]), 100)).toBe('malformed');
    expect(msgpackRefusal(Buffer.from([0xdc, 0x00, 0x02, 0x01, 0x02]), 100)).toBeUndefined();
    expect(msgpackRefusal(Buffer.from([0x92, 0x92, 0x01, 0x02]), 100)).toBe('malformed');
    expect(msgpackRefusal(Buffer.from([0xc0, 0xc0]), 100)).toBe('malformed');
    expect(msgpackRefusal(Buffer.from([0xd9, 0x05, 0x61]), 100)).toBe('malformed');
    expect(msgpackRefusal(Buffer.from([0xc1]), 100)).toBe('malformed');
  });
});
