/** The 5-byte message envelope of gRPC, gRPC-Web and Connect streams (`flags u8 | length u32 BE | message`), for tests that write or read bodies by hand. */

/** Wraps `data` in one envelope. */
export function envelope(flags: number, data: Uint8Array): Buffer {
  const out = Buffer.alloc(5 + data.length);
  out[0] = flags;
  out.writeUInt32BE(data.length, 1);
  Buffer.from(data).copy(out, 5);
  return out;
}

/** The envelopes of a body, in order, and how many bytes they covered. */
export function envelopes(body: Buffer): { list: { flags: number; data: Buffer }[]; consumed: number } {
  const list: { flags: number; data: Buffer }[] = [];
  let at = 0;
  while (at + 5 <= body.length) {
    const size = body.readUInt32BE(at + 1);
    list.push({ flags: body[at] as number, data: body.subarray(at + 5, at + 5 + size) });
    at += 5 + size;
  }
  return { list, consumed: at };
}
