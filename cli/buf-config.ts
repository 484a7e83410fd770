/**
 * The buf.yaml and buf.gen.yaml `fw-gen init` writes, so that `buf build`,
 * `buf lint`, `buf breaking` and `buf generate` work in the scaffold as they do
 * in any buf project. The annotation protos come from node_modules, as
 * fw-gen takes them: fw-gen's own `buf/validate`, and `google/api` from
 * google-proto-files, whose sub-folders are excluded because they import
 * protos that package does not have.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ModuleSystem } from './module-system';
import { packageRoot } from './package-root';

/** Lint rules the scaffold's proto layout does not follow: one folder, an unversioned package, `HelloRequest`/`HelloReply` shared by two RPCs. */
const LINT_EXCEPTIONS = ['PACKAGE_DIRECTORY_MATCH', 'PACKAGE_VERSION_SUFFIX', 'RPC_REQUEST_STANDARD_NAME', 'RPC_RESPONSE_STANDARD_NAME', 'RPC_REQUEST_RESPONSE_UNIQUE'];

/** This package's name and where the annotation protos are, as the scaffold's node_modules will hold them. */
function installedPaths(): { generator: string; protos: string; google: string; googleApiSubdirs: string[] } {
  const { name } = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { name: string };
  const googleRoot = path.dirname(require.resolve('google-proto-files/package.json'));
  const googleApi = path.join(googleRoot, 'google', 'api');
  const googleApiSubdirs = fs
    .readdirSync(googleApi, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return { generator: `node_modules/${name}`, protos: `node_modules/${name}/cli/protos`, google: 'node_modules/google-proto-files', googleApiSubdirs };
}

/** buf.yaml of a scaffold whose protos are in `proto/`. */
export function scaffoldBufYaml(): string {
  const p = installedPaths();
  return [
    '# buf workspace: your protos in proto/, plus the annotation protos fw-gen compiles them with.',
    'version: v2',
    'modules:',
    '  - path: proto',
    `  - path: ${p.protos}`,
    `  - path: ${p.google}`,
    '    includes:',
    `      - ${p.google}/google/api`,
    '    excludes:',
    ...p.googleApiSubdirs.map((d) => `      - ${p.google}/google/api/${d}`),
    'lint:',
    '  use:',
    '    - STANDARD',
    '  except:',
    ...LINT_EXCEPTIONS.map((r) => `    - ${r}`),
    '  ignore:',
    `    - ${p.protos}`,
    `    - ${p.google}`,
    'breaking:',
    '  use:',
    '    - WIRE_JSON',
    '',
  ].join('\n');
}

/** buf.gen.yaml: `buf generate` writes generated/ through protoc-gen-fw, the same files as `fw-gen proto`. */
export function scaffoldBufGenYaml(system: ModuleSystem): string {
  const p = installedPaths();
  return [
    '# `npx buf generate` writes generated/ as `npm run generate` does; stubs in src/ are created and merged by fw-gen only.',
    'version: v2',
    'clean: true',
    'plugins:',
    `  - local: [node, ${p.generator}/bin/protoc-gen-fw.js]`,
    '    out: generated',
    '    strategy: all',
    `    opt: module=${system}`,
    'inputs:',
    '  - directory: proto',
    '',
  ].join('\n');
}
