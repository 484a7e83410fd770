/**
 * A walk over a MessagePack message's headers, run before it is decoded.
 * @msgpack/msgpack allocates an array or map for whatever count a header
 * declares before it reads one element, so a 100-byte message of nested
 * 2^25-entry array headers once took the process past its heap limit. This
 * walk allocates nothing: it refuses any header whose declared length or
 * count cannot fit in the bytes that are left (every element takes at least
 * one byte, and the elements all open containers still owe are counted
 * together), and nesting past the limit, so what the decoder then builds is
 * bounded by the message's own size.
 */

/** Why a message was refused: its shape is impossible, or it nests too deep. */
export type MsgpackRefusal = 'malformed' | 'too-deep';

/** Bytes a fixed-size item's header and body take, by first byte (0 = variable or container). */
function fixedSize(b: number): number {
  if (b <= 0x7f || b >= 0xe0) return 1; // fixints
  if (b >= 0xc0 && b <= 0xc3) return 1; // nil, (never used), false, true
  switch (b) {
    case 0xcc:
    case 0xd0:
      return 2;
    case 0xcd:
    case 0xd1:
    case 0xd4: // fixext 1: type + 1 byte
      return 3;
    case 0xd5: // fixext 2
      return 4;
    case 0xca:
    case 0xce:
    case 0xd2:
      return 5;
    case 0xd6: // fixext 4
      return 6;
    case 0xcb:
    case 0xcf:
    case 0xd3:
      return 9;
    case 0xd7: // fixext 8
      return 10;
    case 0xd8: // fixext 16
      return 18;
    default:
      return 0;
  }
}

/**
 * Checks that `bytes` holds one MessagePack value whose declared sizes all
 * fit in the message and whose containers nest at most `maxDepth` deep;
 * returns undefined when it does, else why not. Linear in the message size.
 */
export function msgpackRefusal(bytes: Uint8Array, maxDepth: number): MsgpackRefusal | undefined {
  const end = bytes.length;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Elements still owed by each open container; the root owes the one value.
  const owed: number[] = [1];
  let owedTotal = 1;
  let pos = 0;
  while (owed.length > 0) {
    if (pos >= end) return 'malformed';
    const b = bytes[pos] as number;
    if (b === 0xc1) return 'malformed';
    const top = owed.length - 1;
    owed[top] = (owed[top] as number) - 1;
    owedTotal--;
    const fixed = fixedSize(b);
    let count = -1; // elements of a container header
    if (fixed > 0) {
      pos += fixed;
    } else if (b >= 0x80 && b <= 0x8f) {
      count = (b & 0x0f) * 2;
      pos += 1;
    } else if (b >= 0x90 && b <= 0x9f) {
      count = b & 0x0f;
      pos += 1;
    } else if (b >= 0xa0 && b <= 0xbf) {
      pos += 1 + (b & 0x1f);
    } else {
      // Headers with an explicit length field: 1, 2 or 4 bytes after the first.
      const width = b === 0xc4 || b === 0xc7 || b === 0xd9 ? 1 : b === 0xc5 || b === 0xc8 || b === 0xda || b === 0xdc || b === 0xde ? 2 : 4;
      if (pos + 1 + width > end) return 'malformed';
      const n = width === 1 ? view.getUint8(pos + 1) : width === 2 ? view.getUint16(pos + 1) : view.getUint32(pos + 1);
      pos += 1 + width;
      if (b === 0xdc || b === 0xdd) count = n;
      else if (b === 0xde || b === 0xdf) count = n * 2;
      else pos += n + (b >= 0xc7 && b <= 0xc9 ? 1 : 0); // bin / str payload; ext adds its type byte
    }
    if (pos > end) return 'malformed';
    if (count >= 0) {
      if (owed.length > maxDepth) return 'too-deep';
      // Every element owed, here and in the containers around, needs at least one more byte.
      if (owedTotal + count > end - pos) return 'malformed';
      owed.push(count);
      owedTotal += count;
    }
    while (owed.length > 0 && owed[owed.length - 1] === 0) owed.pop();
  }
  return pos === end ? undefined : 'malformed';
}
