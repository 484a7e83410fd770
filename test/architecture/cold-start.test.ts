/**
 * Cold start: `import 'fw'` for an HTTP-only app loads the HTTP runtime, not
 * the gateway's transports, gRPC, auth, validation, discovery or telemetry
 * (each loads on first use); an HTTP-only gateway loads none of the other
 * protocols' libraries. Checked in a fresh Node process over runtime/ source
 * (fixtures/loaded-modules.js lists what it loaded); `npm run bench:startup`
 * measures the time.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

const script = path.join(__dirname, 'fixtures', 'loaded-modules.js');

function loadedBy(scenario: 'import' | 'http-gateway'): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, scenario], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${scenario}: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as string[]);
    });
  });
}

/** Packages an HTTP-only app must not load, by the folder name under node_modules. */
const HEAVY_PACKAGES = [
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  '@grpc/reflection',
  'protobufjs',
  'jose',
  'ajv',
  'ajv-formats',
  'etcd3',
  '@opentelemetry',
  'ws',
  '@msgpack/msgpack',
  'pino',
  'prom-client',
];

function packagesIn(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const parts = file.split('node_modules/').pop()!.split('/');
    if (!file.includes('node_modules/')) continue;
    names.add(parts[0]!);
    if (parts[0]!.startsWith('@')) names.add(`${parts[0]}/${parts[1]}`);
  }
  return names;
}

describe('cold start', () => {
  it("an HTTP-only require('fw') loads the HTTP runtime and none of the gateway's machinery, gRPC, auth, validation, discovery or telemetry", async () => {
    const files = await loadedBy('import');
    expect(files).toEqual(expect.arrayContaining(['runtime/index.ts', 'runtime/http/application.ts', 'runtime/http/router.ts']));
    expect([...packagesIn(files)].filter((name) => HEAVY_PACKAGES.includes(name))).toEqual([]);
    // Of the gateway, only the public shell: the ProtocolGateway class, the error model and
    // frame codec, and etcd registration (etcd3 itself loads when it is called).
    const shell = [
      'runtime/gateway/index.ts',
      'runtime/gateway/protocol-gateway.ts',
      'runtime/gateway/errors.ts',
      'runtime/gateway/wire/frame-codec.ts',
      'runtime/gateway/discovery/etcd-registration.ts',
      'runtime/gateway/discovery/discovery-config.ts',
    ];
    expect(files.filter((file) => /^runtime\/(gateway|grpc|middleware|testing)\//.test(file) && !shell.includes(file))).toEqual([]);
    // body-parser and cors come with the gateway's HTTP transport, not with fw.
    expect([...packagesIn(files)].filter((name) => name === 'body-parser' || name === 'cors')).toEqual([]);
  });

  it('an HTTP-only gateway serves a call without loading the other protocols, auth or validation', async () => {
    const files = await loadedBy('http-gateway');
    expect(files).toContain('runtime/gateway/http/transport.ts');
    expect([...packagesIn(files)].filter((name) => HEAVY_PACKAGES.includes(name))).toEqual([]);
    expect(files.filter((file) => /^runtime\/gateway\/(websocket|grpc|udp|tcp|monitoring|auth)\//.test(file))).toEqual([]);
  });
});
