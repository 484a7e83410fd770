/**
 * The default gRPC server path loads no grpc-js: runtime/grpc (but for the
 * client, the grpc-js fallback engine and loadProtoDefinition's module) and
 * the gateway's gRPC transport import @grpc/grpc-js and @grpc/proto-loader
 * for types only; the fallback engine and configureGRPC's proto files load
 * them with require() when chosen. The gateway's and server.grpc()'s calls
 * run through the call core in runtime/rpc.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...filesUnder(rel));
    else if (entry.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** Files allowed to load grpc-js or proto-loader, and why. */
const LOADERS = new Set([
  // The fallback engine (`grpc.engine: 'grpc-js'`), required only when chosen.
  'runtime/grpc/grpc-js-engine.ts',
  // loadProtoDefinition and the `{definition, implementation}` form read grpc-js's definition objects; required on first use.
  'runtime/grpc/proto-definition.ts',
]);

const VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)[^;]*?from\s+'(@grpc\/(?:grpc-js|proto-loader)[^']*)'/gm;
const TOP_LEVEL_REQUIRE = /^(?:const|let|var|import)\b[^\n]*require\('(@grpc\/(?:grpc-js|proto-loader)[^']*)'\)/gm;

function valueImports(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(VALUE_IMPORT), ...text.matchAll(TOP_LEVEL_REQUIRE)].map((m) => `${file} -> ${m[1] as string}`);
}

describe('gRPC runtime imports', () => {
  it('runtime/grpc (outside client/ and the fallback engine) and runtime/gateway/grpc import grpc-js and proto-loader for types only', () => {
    const files = [...filesUnder('runtime/grpc').filter((f) => !f.startsWith('runtime/grpc/client/')), ...filesUnder('runtime/gateway/grpc')];
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => !LOADERS.has(f)).flatMap(valueImports)).toEqual([]);
  });

  it('finds a value import where there is one (the fallback engine)', () => {
    expect(valueImports('runtime/grpc/grpc-js-engine.ts')).toEqual(['runtime/grpc/grpc-js-engine.ts -> @grpc/grpc-js']);
  });

  it("server.grpc()'s calls run through runtime/rpc's core and registry", () => {
    const pipeline = fs.readFileSync(path.join(root, 'runtime/grpc/pipeline.ts'), 'utf8');
    expect(pipeline).toContain("import { CallCore } from '../rpc/call-core'");
    expect(pipeline).toContain("import { ServiceRegistry } from '../rpc/registry'");
    expect(pipeline).toMatch(/this\.#core\.run\(call\)/);
    // No second composer of middleware in the gRPC adapter.
    expect(pipeline).not.toMatch(/\bcompose\(/);
  });

  it('the gateway builds its call path from runtime/rpc', () => {
    const facade = fs.readFileSync(path.join(root, 'runtime/gateway/protocol-gateway.ts'), 'utf8');
    expect(facade).toContain("require('../rpc/call-core')");
    expect(facade).toContain("require('../rpc/registry')");
    // No second call path, nor a second name for the core, in the gateway.
    expect(fs.existsSync(path.join(root, 'runtime/gateway/dispatch.ts'))).toBe(false);
  });
});
