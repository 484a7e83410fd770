/**
 * The binary reader and writer that compiled codecs (./compile-codecs.ts)
 * run on, as JavaScript source: each compiled group of message types is one
 * function body starting with this text, so the read position `p` and the
 * write buffer `o` / position `w` are variables of that body's closure that
 * the generated per-message functions share, not properties looked up on an
 * object at every byte.
 *
 * Reader: `b` is the Buffer being read, `e` the end of the current message;
 * every read checks `e`, so bytes of an enclosing message are never taken.
 * Writer: `room(n)` before writing at most n bytes; a length-delimited field
 * reserves one byte for its length and `patch(at)` widens it when the body
 * turns out longer than 127 bytes.
 */
// Short ASCII strings, the usual ids and names: String.fromCharCode with the bytes as arguments
// costs a fraction of a native utf8Slice call, whose fixed cost dominates at this length.
function asciiSource(): string {
  const cases: string[] = [];
  for (let n = 1; n <= 16; n += 1) {
    const args = Array.from({ length: n }, (_, i) => (i === 0 ? 'b[s]' : `b[s + ${i}]`)).join(', ');
    cases.push(`    case ${n}: return fcc(${args});`);
  }
  return `const fcc = String.fromCharCode;
function ascii(b, s, n) {
  switch (n) {
    case 0: return '';
${cases.join('\n')}
  }
  return b.latin1Slice(s, s + n);
}`;
}

export const WIRE_PRELUDE = String.raw`
'use strict';
const LIMIT = 100;
let p = 0;
let hi = 0;
function truncated() { throw new RangeError('index out of range: the message ends inside a field'); }
function tooDeep() { throw new Error('maximum nesting depth exceeded'); }
function badTag(t) { throw new Error('invalid tag ' + t + ' at offset ' + p); }
function u32(b, e) {
  let v = 0;
  for (let s = 0; s < 70; s += 7) {
    if (p >= e) truncated();
    const c = b[p++];
    if (s < 32) v |= (c & 127) << s;
    if (c < 128) return v >>> 0;
  }
  throw new RangeError('invalid varint encoding at offset ' + p);
}
function tag(b, e) {
  if (p < e) { const t = b[p]; if (t < 128) { p++; return t; } }
  return u32(b, e);
}
function v64(b, e) {
  let lo = 0;
  hi = 0;
  for (let s = 0; s < 70; s += 7) {
    if (p >= e) truncated();
    const c = b[p++];
    if (s < 28) lo |= (c & 127) << s;
    else if (s === 28) { lo |= (c & 127) << 28; hi = (c & 127) >>> 4; }
    else hi |= (c & 127) << (s - 32);
    if (c < 128) { hi >>>= 0; return lo >>> 0; }
  }
  throw new RangeError('invalid varint encoding at offset ' + p);
}
function len(b, e) {
  const n = u32(b, e);
  if (n > e - p) truncated();
  return n;
}
function lim(b, e) {
  const n = len(b, e);
  return p + n;
}
function en(names, v) {
  const n = names[v];
  return n === undefined ? v : n;
}
function fx32(b, e) {
  if (e - p < 4) truncated();
  const v = (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;
  p += 4;
  return v;
}
function fx64(b, e) {
  if (e - p < 8) truncated();
  const lo = (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;
  hi = (b[p + 4] | (b[p + 5] << 8) | (b[p + 6] << 16) | (b[p + 7] << 24)) >>> 0;
  p += 8;
  return lo;
}
function f32(b, e) { if (e - p < 4) truncated(); const v = b.readFloatLE(p); p += 4; return v; }
function f64(b, e) { if (e - p < 8) truncated(); const v = b.readDoubleLE(p); p += 8; return v; }
function str(b, e) {
  const n = len(b, e);
  const s = p;
  p += n;
  if (n <= 16) {
    let any = 0;
    for (let i = s; i < p; i++) any |= b[i];
    if (any < 128) return ascii(b, s, n);
  }
  return b.utf8Slice(s, p);
}
${asciiSource()}
function bytes(b, e) {
  const n = len(b, e);
  const s = p;
  p += n;
  return b.subarray(s, p);
}
function boolOf(b, e) { const lo = v64(b, e); return (lo | hi) !== 0; }
function sint32Of(v) { return (v >>> 1) ^ -(v & 1); }
function u64Of(lo) { return hi === 0 ? BigInt(lo) : (BigInt(hi) << 32n) | BigInt(lo); }
function i64Of(lo) { return hi === 0 ? BigInt(lo) : BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)); }
function s64Of(lo) {
  if (hi === 0) return BigInt((lo >>> 1) ^ -(lo & 1));
  const u = (BigInt(hi) << 32n) | BigInt(lo);
  return (u >> 1n) ^ -(u & 1n);
}
function skip(b, e, wt, depth) {
  switch (wt) {
    case 0: v64(b, e); return;
    case 1: if (e - p < 8) truncated(); p += 8; return;
    case 2: p += len(b, e); return;
    case 3:
      if (depth >= LIMIT) tooDeep();
      for (;;) {
        const t = u32(b, e);
        if ((t & 7) === 4) return;
        if ((t >>> 3) === 0) badTag(t);
        skip(b, e, t & 7, depth + 1);
      }
    case 5: if (e - p < 4) truncated(); p += 4; return;
    default: throw new Error('invalid wire type ' + wt + ' at offset ' + p);
  }
}
function unknown(b, e, t, depth) {
  if ((t >>> 3) === 0 || (t & 7) === 4) badTag(t);
  skip(b, e, t & 7, depth);
}
function setKey(m, k, v) {
  if (k === '__proto__') Object.defineProperty(m, k, { value: v, enumerable: true, writable: true, configurable: true });
  else m[k] = v;
}
function asBuffer(b) {
  if (Buffer.isBuffer(b)) return b;
  if (b instanceof Uint8Array) return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  throw new TypeError('expected the message as a Buffer');
}

let o = Buffer.allocUnsafe(8192);
let w = 0;
let busy = false;
function room(n) {
  if (w + n > o.length) {
    const next = Buffer.allocUnsafe(Math.max(o.length * 2, w + n));
    o.copy(next, 0, 0, w);
    o = next;
  }
}
function wv(v) {
  while (v > 127) { o[w++] = (v & 127) | 128; v >>>= 7; }
  o[w++] = v;
}
function wv64(lo, hi) {
  while (hi !== 0) { o[w++] = (lo & 127) | 128; lo = ((lo >>> 7) | (hi << 25)) >>> 0; hi >>>= 7; }
  wv(lo);
}
function wi32(v) { if (v < 0) wv64(v >>> 0, 0xffffffff); else wv(v); }
function wfx32(v) { o[w++] = v & 255; o[w++] = (v >>> 8) & 255; o[w++] = (v >>> 16) & 255; o[w++] = (v >>> 24) & 255; }
function wbig(v) {
  if (v >= 0n && v <= 0xffffffffn) { wv(Number(v)); return; }
  const u = BigInt.asUintN(64, v);
  wv64(Number(u & 0xffffffffn), Number(u >> 32n));
}
function wfx64(v) {
  const u = BigInt.asUintN(64, v);
  wfx32(Number(u & 0xffffffffn));
  wfx32(Number(u >> 32n));
}
function zz64(v) { const s = BigInt.asIntN(64, v); return BigInt.asUintN(64, (s << 1n) ^ (s >> 63n)); }
function ws(s) {
  const n = s.length;
  if (n < 128) {
    room(1 + n * 3);
    const at = w;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) break;
      o[at + 1 + i] = c;
    }
    if (i === n) { o[at] = n; w = at + 1 + n; return; }
    w = at + 1;
    w += o.utf8Write(s, w);
    patch(at);
    return;
  }
  const k = Buffer.byteLength(s);
  room(5 + k);
  wv(k);
  w += o.utf8Write(s, w);
}
function wbytes(x) {
  const v = typeof x === 'string' ? Buffer.from(x, 'base64') : x instanceof Uint8Array ? x : Buffer.from(x);
  room(5 + v.length);
  wv(v.length);
  o.set(v, w);
  w += v.length;
}
function patch(at) {
  const n = w - at - 1;
  if (n < 128) { o[at] = n; return; }
  const k = n < 16384 ? 2 : n < 2097152 ? 3 : n < 268435456 ? 4 : 5;
  room(k - 1);
  o.copyWithin(at + k, at + 1, w);
  w += k - 1;
  let q = at;
  let v = n;
  while (v > 127) { o[q++] = (v & 127) | 128; v >>>= 7; }
  o[q] = v;
}
function toLong(x, unsigned, field) {
  if (typeof x === 'bigint') return x;
  if (typeof x === 'number') {
    if (x !== x) return 0n;
    if (unsigned) { if (x <= 0) return 0n; if (x >= 18446744073709551616) return 18446744073709551615n; }
    else { if (x <= -9223372036854775808) return -9223372036854775808n; if (x >= 9223372036854775807) return 9223372036854775807n; }
    return BigInt(Math.trunc(x));
  }
  if (typeof x === 'string') {
    try { return BigInt(x); } catch { throw new TypeError(field + ': 64-bit integer expected, got ' + JSON.stringify(x)); }
  }
  if (x !== null && typeof x === 'object' && typeof x.low === 'number' && typeof x.high === 'number') {
    return (BigInt(x.high >>> 0) << 32n) | BigInt(x.low >>> 0);
  }
  throw new TypeError(field + ': 64-bit integer expected');
}
function notObject(field) { throw new TypeError(field + ': object expected'); }
function notArray(field) { throw new TypeError(field + ': array expected'); }
function finish() {
  const out = Buffer.allocUnsafe(w);
  // A native copy's call costs more than a loop over a short message.
  if (w <= 64) for (let i = 0; i < w; i++) out[i] = o[i];
  else o.copy(out, 0, 0, w);
  if (o.length > 1048576) o = Buffer.allocUnsafe(8192);
  return out;
}
// head: 0, or 5 to leave room for the gRPC message prefix (flag byte, big-endian length), filled in here.
// empty: the type has no fields, and fromObject then takes any value (a handler of an Empty reply may return nothing).
function encodeWith(fn, v, name, head, empty) {
  if (Array.isArray(v)) throw new Error('Failed to serialize message: expected object with ' + name + ' structure, got array instead');
  if (empty) v = {};
  else if (v === null || typeof v !== 'object') notObject(name);
  const nested = busy;
  const outerO = o;
  const outerW = w;
  if (nested) o = Buffer.allocUnsafe(256);
  busy = true;
  w = head;
  try {
    fn(v, 0);
    if (head === 5) {
      const n = w - 5;
      o[0] = 0; o[1] = n >>> 24; o[2] = (n >>> 16) & 255; o[3] = (n >>> 8) & 255; o[4] = n & 255;
    }
    return finish();
  } finally {
    if (nested) { o = outerO; w = outerW; } else busy = false;
  }
}
function decodeWith(fn, bytes) {
  const b = asBuffer(bytes);
  p = 0;
  return fn(b, b.length, 0);
}
`;
