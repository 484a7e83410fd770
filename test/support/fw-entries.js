/**
 * fw's package entry points and the source file each one is (as jest's
 * moduleNameMapper maps them), for code that loads fw from this checkout:
 * require-ts.js (TypeScript source) and the benches' compiled copy
 * (test/bench/support/compiled-fw.js), which swaps `.ts` for `.js`.
 */
'use strict';

const FW_ENTRIES = {
  fw: 'runtime/index.ts',
  'fw/grpc': 'runtime/grpc/index.ts',
  'fw/grpc-client': 'runtime/grpc/client/index.ts',
  'fw/protobuf-wire': 'runtime/protobuf-wire.ts',
  'fw/browser': 'runtime/browser/index.ts',
};

module.exports = { FW_ENTRIES };
