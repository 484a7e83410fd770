/**
 * The FileDescriptorProtos a generated `x.fw.ts` hands to the runtime (server
 * reflection, strict decoding, validation): the descriptors fw ships (the
 * well-known types and its annotation protos) by name, the lists of other
 * generated files it imports, and its own descriptor embedded as base64
 * pieces, one per top-level element.
 */
import { SHIPPED_FILE_DESCRIPTORS } from './shipped-file-descriptors.data';

const decoded = new Map<string, Uint8Array>();

function shipped(name: string): Uint8Array {
  let bytes = decoded.get(name);
  if (bytes === undefined) {
    const base64 = SHIPPED_FILE_DESCRIPTORS[name];
    if (base64 === undefined) throw new Error(`fw: no shipped descriptor for ${name}: regenerate the code with the fw-gen of this fw version`);
    bytes = new Uint8Array(Buffer.from(base64, 'base64'));
    decoded.set(name, bytes);
  }
  return bytes;
}

/** One entry: a shipped file's proto path, the base64 pieces of an embedded file, or another generated file's list. */
export type FileDescriptorEntry = string | readonly string[] | readonly Uint8Array[];

function isPieces(entry: readonly string[] | readonly Uint8Array[]): entry is readonly string[] {
  return typeof entry[0] === 'string';
}

/**
 * Builds a generated file's descriptor list, imports first; a file that two
 * entries hold (say, both import the well-known types) is listed once.
 * @example
 * const FILE_DESCRIPTOR_PROTOS = fileDescriptorProtos(['google/protobuf/timestamp.proto', ['Cgp1c2VyLnByb3Rv', 'IgYKBFVzZXI=']]);
 */
export function fileDescriptorProtos(entries: readonly FileDescriptorEntry[]): readonly Uint8Array[] {
  const out: Uint8Array[] = [];
  const seen = new Set<string>();
  const add = (bytes: Uint8Array): void => {
    const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    if (seen.has(key)) return;
    seen.add(key);
    out.push(bytes);
  };
  for (const entry of entries) {
    if (typeof entry === 'string') add(shipped(entry));
    else if (isPieces(entry)) add(new Uint8Array(Buffer.concat(entry.map((piece) => Buffer.from(piece, 'base64')))));
    else entry.forEach(add);
  }
  return out;
}
