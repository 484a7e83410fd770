/**
 * fw/browser and generated browser clients run in browsers: their whole
 * import graph (resolved by esbuild exactly as a bundler would) holds no Node
 * built-in, no server-side fw module and no Node-only package — only
 * runtime/browser/, the generated files, fw/protobuf-wire and the
 * @bufbuild/protobuf code it re-exports (written for browsers and Node).
 */
import path from 'node:path';
import { builtinModules } from 'node:module';
import { build, type Metafile } from 'esbuild';

const ROOT = path.resolve(__dirname, '../..');
const ALIAS = { 'fw/browser': path.join(ROOT, 'runtime/browser/index.ts'), 'fw/protobuf-wire': path.join(ROOT, 'runtime/protobuf-wire.ts') };
const BUILTINS = new Set(builtinModules);

/** Every file and every import the bundle of `entry` reaches (nothing is left external, so a Node built-in would fail or show). */
async function graphOf(entry: string): Promise<{ inputs: string[]; imports: string[] }> {
  const out = await build({ entryPoints: [entry], bundle: true, write: false, metafile: true, platform: 'neutral', mainFields: ['module', 'main'], format: 'esm', logLevel: 'silent', alias: ALIAS });
  const meta: Metafile = out.metafile;
  const inputs = Object.keys(meta.inputs);
  const imports = Object.values(meta.inputs).flatMap((i) => i.imports.map((x) => x.original ?? x.path));
  return { inputs, imports };
}

function allowed(input: string): boolean {
  return (
    input.startsWith('runtime/browser/') ||
    input === 'runtime/protobuf-wire.ts' ||
    input.startsWith('generated/') ||
    // @bufbuild/protobuf is written for browsers too: its wire code and the helpers that code reaches.
    input.startsWith('node_modules/@bufbuild/protobuf/dist/esm/')
  );
}

describe('browser runtime import graph', () => {
  it.each([
    ['fw/browser', path.join(ROOT, 'runtime/browser/index.ts')],
    ['generated/user.browser.ts', path.join(ROOT, 'generated/user.browser.ts')],
  ])('%s imports no Node built-in and nothing server-side', async (_name, entry) => {
    const { inputs, imports } = await graphOf(entry);
    expect(imports.filter((i) => i.startsWith('node:') || BUILTINS.has(i))).toEqual([]);
    expect(inputs.filter((i) => !allowed(i))).toEqual([]);
  });

  it('fw/browser alone is only runtime/browser/ and @bufbuild/protobuf’s name and base64 helpers', async () => {
    const { inputs } = await graphOf(path.join(ROOT, 'runtime/browser/index.ts'));
    expect(inputs.length).toBeGreaterThan(3);
    // The well-known types' JSON (well-known-json.ts) converts FieldMask names and base64 with @bufbuild/protobuf's own functions.
    expect(inputs.filter((i) => !i.startsWith('runtime/browser/') && !i.startsWith('node_modules/@bufbuild/protobuf/dist/esm/'))).toEqual([]);
  });
});
