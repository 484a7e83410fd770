/**
 * `fw/protobuf-wire`: the binary reader and writer that generated message
 * code (`x.ts`, from ts-proto) encodes and decodes with. fw-gen points
 * generated imports here, so a project that depends on fw alone resolves them
 * without installing `@bufbuild/protobuf` itself (docs/codegen.md).
 */
export * from '@bufbuild/protobuf/wire';
