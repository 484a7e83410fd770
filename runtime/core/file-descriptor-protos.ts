/**
 * The FileDescriptorProtos a generated `x.fw.ts` hands to the runtime (server
 * reflection, strict decoding, validation): the descriptors fw ships (the
 * well-known types and its annotation protos) by name, and the file's own
 * descriptor embedded as base64 pieces, one per top-level element.
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

/**
 * Builds a generated file's descriptor list, imports first.
 * @param files per file: the proto path of a descriptor fw ships, or the base64 pieces of an embedded one
 * @example
 * const FILE_DESCRIPTOR_PROTOS = fileDescriptorProtos(['google/protobuf/timestamp.proto', ['Cgp1c2VyLnByb3Rv', 'IgYKBFVzZXI=']]);
 */
export function fileDescriptorProtos(files: readonly (string | readonly string[])[]): readonly Uint8Array[] {
  return files.map((file) => (typeof file === 'string' ? shipped(file) : new Uint8Array(Buffer.concat(file.map((piece) => Buffer.from(piece, 'base64'))))));
}
