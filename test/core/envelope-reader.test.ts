/**
 * The one length-prefixed reader (gRPC, gRPC-Web, Connect): messages split
 * across chunks at every byte, several messages in one chunk, the size limit
 * enforced on the prefix alone, truncation reported, and a large message in
 * many small chunks joined once.
 */
import { LengthPrefixedReader, type EnvelopeErrors } from '../../runtime/core/envelope-reader';

const errors: EnvelopeErrors = {
  tooLarge: (size, limit) => new RangeError(`too large: ${size} > ${limit}`),
  truncated: () => new Error('truncated'),
};

function frame(flags: number, payload: Buffer): Buffer {
  const out = Buffer.alloc(5 + payload.length);
  out[0] = flags;
  out.writeUInt32BE(payload.length, 1);
  payload.copy(out, 5);
  return out;
}

function drain(reader: LengthPrefixedReader): { flags: number; text: string }[] {
  const out: { flags: number; text: string }[] = [];
  for (let e = reader.next(); e !== undefined; e = reader.next()) out.push({ flags: e.flags, text: e.data.toString() });
  return out;
}

describe('LengthPrefixedReader', () => {
  const wire = Buffer.concat([frame(0, Buffer.from('alpha')), frame(1, Buffer.alloc(0)), frame(0, Buffer.from('gamma!'))]);
  const expected = [{ flags: 0, text: 'alpha' }, { flags: 1, text: '' }, { flags: 0, text: 'gamma!' }];

  it('reads messages whatever the chunk boundaries (every split point, and byte by byte)', () => {
    for (let cut = 0; cut <= wire.length; cut++) {
      const reader = new LengthPrefixedReader(100, errors);
      reader.push(wire.subarray(0, cut));
      const got = drain(reader);
      reader.push(wire.subarray(cut));
      got.push(...drain(reader));
      expect(got).toEqual(expected);
      expect(() => reader.finish()).not.toThrow();
    }
    const reader = new LengthPrefixedReader(100, errors);
    const got: { flags: number; text: string }[] = [];
    for (const byte of wire) {
      reader.push(Buffer.from([byte]));
      got.push(...drain(reader));
    }
    expect(got).toEqual(expected);
  });

  it('refuses on the prefix alone a message over the limit, and reports a body ending inside a message', () => {
    const big = Buffer.alloc(5);
    big.writeUInt32BE(1_000_000, 1);
    const reader = new LengthPrefixedReader(100, errors);
    expect(() => reader.push(big)).toThrow('too large: 1000000 > 100');
    const cut = new LengthPrefixedReader(100, errors);
    cut.push(wire.subarray(0, 7));
    expect(drain(cut)).toEqual([]);
    expect(cut.pending).toBe(true);
    expect(() => cut.finish()).toThrow('truncated');
  });

  it('joins a 1 MiB message sent in 1 KiB chunks once, not once per chunk', () => {
    const payload = Buffer.alloc(1 << 20, 7);
    const framed = frame(0, payload);
    const reader = new LengthPrefixedReader(2 << 20, errors);
    const concat = jest.spyOn(Buffer, 'concat');
    try {
      for (let at = 0; at < framed.length; at += 1024) reader.push(framed.subarray(at, at + 1024));
      const message = reader.next();
      expect(message?.data.equals(payload)).toBe(true);
      expect(concat.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      concat.mockRestore();
    }
  });
});
