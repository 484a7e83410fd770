/**
 * The byte accumulator and the prefixed-frame reader every body and frame
 * reader builds on: seeded random frame streams, cut at random places (one
 * byte at a time among them), come out as the same frames, and what a reader
 * holds stays near the bytes it was given.
 */
import { ByteAccumulator } from '../../runtime/core/byte-accumulator';
import { LengthPrefixedReader } from '../../runtime/core/envelope-reader';
import { PrefixedFrameReader } from '../../runtime/core/prefixed-frame-reader';
import { prng } from '../support/prng';

const SEED = Number(process.env.FW_FUZZ_SEED ?? Date.now() % 1_000_000);

function cut(bytes: Buffer, rand: () => number): Buffer[] {
  const pieces: Buffer[] = [];
  const style = rand();
  for (let at = 0; at < bytes.length; ) {
    const size = style < 0.3 ? 1 : style < 0.6 ? 1 + Math.floor(rand() * 7) : 1 + Math.floor(rand() * 40_000);
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
}

describe('ByteAccumulator', () => {
  it(`gives back exactly the bytes pushed, however they were cut (seed ${SEED})`, () => {
    const rand = prng(SEED);
    for (let round = 0; round < 200; round++) {
      const bytes = Buffer.from(Array.from({ length: Math.floor(rand() * 70_000) }, () => Math.floor(rand() * 256)));
      const accumulator = new ByteAccumulator();
      for (const piece of cut(bytes, rand)) accumulator.push(piece);
      expect(accumulator.length).toBe(bytes.length);
      if (!accumulator.take().equals(bytes)) throw new Error(`seed ${SEED}, round ${round}: bytes differ`);
      expect(accumulator.length).toBe(0);
    }
  });

  it('keeps a body that came in one chunk without copying it', () => {
    const chunk = Buffer.from('{"one":"chunk"}');
    const accumulator = new ByteAccumulator();
    accumulator.push(chunk);
    expect(accumulator.take()).toBe(chunk);
  });
});

describe('PrefixedFrameReader and LengthPrefixedReader', () => {
  it(`split random envelope streams into the frames that were sent (seed ${SEED})`, () => {
    const rand = prng(SEED + 1);
    for (let round = 0; round < 100; round++) {
      const sent: { flags: number; data: Buffer }[] = [];
      for (let i = 0; i < 1 + Math.floor(rand() * 8); i++) {
        const data = Buffer.from(Array.from({ length: Math.floor(rand() * (rand() < 0.2 ? 50_000 : 30)) }, () => Math.floor(rand() * 256)));
        sent.push({ flags: Math.floor(rand() * 2), data });
      }
      const stream = Buffer.concat(sent.map(({ flags, data }) => {
        const header = Buffer.alloc(5);
        header[0] = flags;
        header.writeUInt32BE(data.length, 1);
        return Buffer.concat([header, data]);
      }));
      const reader = new LengthPrefixedReader(1 << 20, { tooLarge: () => new Error('too large'), truncated: () => new Error('truncated') });
      const got: { flags: number; data: Buffer }[] = [];
      for (const piece of cut(stream, rand)) {
        reader.push(piece);
        for (let e = reader.next(); e !== undefined; e = reader.next()) got.push({ flags: e.flags, data: Buffer.from(e.data) });
      }
      reader.finish();
      expect(got.length).toBe(sent.length);
      got.forEach((frame, i) => {
        if (frame.flags !== sent[i]?.flags || !frame.data.equals(sent[i]?.data ?? Buffer.alloc(0))) throw new Error(`seed ${SEED + 1}, round ${round}: frame ${i} differs`);
      });
    }
  });

  it('refuses a header over the limit as soon as it is complete, and a stream that ends inside a frame', () => {
    const reader = new LengthPrefixedReader(10, { tooLarge: (size) => new Error(`too large: ${size}`), truncated: () => new Error('truncated') });
    expect(() => reader.push(Buffer.from([0, 0, 0, 0, 11]))).toThrow('too large: 11');
    const short = new LengthPrefixedReader(10, { tooLarge: () => new Error('too large'), truncated: () => new Error('truncated') });
    short.push(Buffer.from([0, 0, 0, 0, 4, 1]));
    expect(short.pending).toBe(true);
    expect(() => short.finish()).toThrow('truncated');
  });

  it('holds what it was given, not what a header announced', () => {
    const reader = new PrefixedFrameReader(5, (bytes, offset) => bytes.readUInt32BE(offset + 1));
    reader.push(Buffer.from([0, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3]), () => undefined);
    expect(reader.held).toBe(8);
    expect(reader.partial).toBe(true);
  });
});
