/** Tests run from TypeScript source; `fw/*` resolves to runtime/ exactly as the exports map does for dist/. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // test/project packs fw and installs it into new projects (minutes): `npm run test:project`.
  testPathIgnorePatterns: ['/node_modules/', '/fixtures/', '/bench/', '<rootDir>/test/project/'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] },
  moduleNameMapper: {
    '^fw$': '<rootDir>/runtime/index.ts',
    '^fw/grpc$': '<rootDir>/runtime/grpc/index.ts',
    '^fw/grpc-client$': '<rootDir>/runtime/grpc/client/index.ts',
    '^fw/middleware$': '<rootDir>/runtime/middleware/index.ts',
    '^fw/testing$': '<rootDir>/runtime/testing/index.ts',
    '^fw/protobuf-wire$': '<rootDir>/runtime/protobuf-wire.ts',
    '^fw/browser$': '<rootDir>/runtime/browser/index.ts',
  },
  testTimeout: 30000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
