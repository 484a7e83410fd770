/**
 * `fw-gen init [dir]`: scaffolds a service that depends on fw — package.json,
 * a strict tsconfig (ES modules by default, `--module commonjs` for CommonJS),
 * `proto/<name>.proto` with a unary and a server-streaming RPC mapped to HTTP,
 * generated code, the handler stub under `src/` with working bodies, a server
 * on all five protocols, a test with `fw/testing`, a CI workflow (with the
 * breaking-change check on pull requests), buf.yaml and buf.gen.yaml, and a README.
 * fw is a dependency and fw-gen a dev dependency; tarballs they were installed
 * from are copied into `vendor/`, so a clone installs anywhere. Existing files
 * are never overwritten (package.json is merged).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError } from 'commander';
import { scaffoldBufGenYaml, scaffoldBufYaml } from './buf-config';
import { ExitCode, InputError } from './cli-error';
import { scaffoldManifest, scaffoldSpecs, type ScaffoldSpecs } from './init-manifest';
import { importSuffix, parseModuleFlag, type ModuleSystem } from './module-system';
import { packageRoot } from './package-root';
import { runOnce } from './run-once';
import { compileTemplate } from './template-cache';

interface InitOptions {
  name?: string;
  module: string;
  fw?: string;
  fwGen?: string;
}

/** Names the scaffold derives from one word: `my-shop` → my_shop.proto, package my_shop, MyShopService. */
export interface ScaffoldNames {
  packageName: string;
  protoName: string;
  protoPackage: string;
  serviceName: string;
}

/** Derives the scaffold's names from `raw` (the folder name unless `--name`). */
export function scaffoldNames(raw: string): ScaffoldNames {
  const words = raw
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== '');
  if (words.length === 0 || !/^[a-z]/.test(words[0] as string)) {
    throw new InputError(`fw-gen init: cannot name a service after "${raw}": use --name with a name that starts with a letter`);
  }
  const pascal = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  const snake = words.join('_');
  return {
    packageName: words.join('-'),
    protoName: snake,
    protoPackage: snake,
    serviceName: pascal.endsWith('Service') ? pascal : `${pascal}Service`,
  };
}

/** Bodies that replace the stub's UNIMPLEMENTED lines, by RPC. */
const BODIES: Readonly<Record<string, string>> = {
  SayHello: [
    "if (request.name === '') throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, 'name is required');",
    'return { message: `Hello, ${request.name}!` };',
  ].join('\n    '),
  StreamHellos: [
    'const count = Math.min(Math.max(request.count, 1), 10);',
    'for (let i = 1; i <= count; i++) yield { message: `Hello ${i} of ${count}, ${request.name}!` };',
  ].join('\n    '),
};

/** The scaffold's files (path → content), package.json and generated code aside. */
function scaffoldFiles(names: ScaffoldNames, system: ModuleSystem, vendored: boolean): Map<string, string> {
  const view = { ...names, ext: importSuffix(system), vendored };
  const render = (template: string): string => compileTemplate(fs.readFileSync(path.join(packageRoot(), 'templates', 'init', template), 'utf8'))(view);
  return new Map([
    [`proto/${names.protoName}.proto`, render('service.proto.hbs')],
    ['tsconfig.json', render('tsconfig.json.hbs')],
    ['src/server.ts', render('server.ts.hbs')],
    ['src/main.ts', render('main.ts.hbs')],
    [`test/${names.protoName}.test.ts`, render('service.test.ts.hbs')],
    ['.github/workflows/ci.yml', render('ci.yml.hbs')],
    ['buf.yaml', scaffoldBufYaml()],
    ['buf.gen.yaml', scaffoldBufGenYaml(system)],
    ['README.md', render('README.md.hbs')],
    ['.gitignore', render('gitignore.hbs')],
    // What a container and a Kubernetes cluster run (docs/production.md).
    ['Dockerfile', render('Dockerfile.hbs')],
    ['.dockerignore', render('dockerignore.hbs')],
    ['k8s/deployment.yaml', render('k8s-deployment.yaml.hbs')],
    ['k8s/service.yaml', render('k8s-service.yaml.hbs')],
    ['k8s/pod-disruption-budget.yaml', render('k8s-pod-disruption-budget.yaml.hbs')],
  ]);
}

/** Fills the generated stub's two UNIMPLEMENTED bodies with working ones. */
function fillStub(file: string, names: ScaffoldNames): void {
  let text = fs.readFileSync(file, 'utf8');
  for (const [rpc, body] of Object.entries(BODIES)) {
    const line = `throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/${names.protoPackage}.${names.serviceName}/${rpc} has no handler yet');`;
    if (!text.includes(line)) throw new Error(`fw-gen init: the generated stub has no UNIMPLEMENTED body for ${rpc}`);
    text = text.replace(line, body);
  }
  fs.writeFileSync(file, text);
}

/** Copies the tarballs `specs` points into `vendor/`; returns their paths relative to `dir`. */
function vendorTarballs(dir: string, specs: ScaffoldSpecs): string[] {
  const copied: string[] = [];
  for (const dependency of [specs.fw, specs.fwGen]) {
    if (dependency?.vendorFrom === undefined) continue;
    if (!fs.existsSync(dependency.vendorFrom)) throw new InputError(`fw-gen init: package.json names ${dependency.vendorFrom}, which does not exist`);
    const rel = dependency.spec.slice('file:'.length);
    fs.mkdirSync(path.join(dir, 'vendor'), { recursive: true });
    fs.copyFileSync(dependency.vendorFrom, path.join(dir, rel));
    copied.push(rel);
  }
  return copied;
}

/** Creates the scaffold in `dir`; returns the lines to print. */
async function scaffold(dir: string, options: InitOptions): Promise<string[]> {
  const system = parseModuleFlag(options.module);
  const names = scaffoldNames(options.name ?? path.basename(dir));
  const specs = scaffoldSpecs(dir, { fw: options.fw, fwGen: options.fwGen });
  // The Dockerfile copies vendor/ only when the tarballs travel with the project.
  const vendored = [specs.fw, specs.fwGen].some((d) => d?.spec.startsWith('file:vendor/') === true);
  const files = scaffoldFiles(names, system, vendored);
  const stub = `src/${names.protoName}.service.ts`;
  const taken = [...files.keys(), stub, 'generated'].filter((f) => fs.existsSync(path.join(dir, f)));
  if (taken.length > 0) throw new InputError(`fw-gen init: ${dir} already has ${taken.join(', ')}; nothing was written (init only creates files)`);
  fs.mkdirSync(dir, { recursive: true });
  const vendor = vendorTarballs(dir, specs);
  const manifest = scaffoldManifest(dir, names.packageName, system, specs, `dist/test/${names.protoName}.test.js`);
  fs.writeFileSync(path.join(dir, 'package.json'), manifest);
  for (const [rel, content] of files) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  const problems: string[] = [];
  const code = await runOnce(['proto'], { out: 'generated', stubs: 'src', module: system, protoPath: [], check: false, watch: false, quiet: true }, dir, () => undefined, (l) => problems.push(l));
  if (code !== ExitCode.ok) throw new Error(`fw-gen init: generating code failed:\n${problems.join('\n')}`);
  fillStub(path.join(dir, stub), names);
  const where = path.relative(process.cwd(), dir) || '.';
  return [
    `fw-gen init: ${names.serviceName} (${system === 'esm' ? 'ES modules' : 'CommonJS'}) in ${where}`,
    ...['package.json', ...vendor, ...files.keys(), stub, 'generated/'].map((f) => `  ${f}`),
    'next:',
    ...(where === '.' ? [] : [`  cd ${where}`]),
    '  npm install && npm start    # serves HTTP, WebSocket, gRPC, TCP and UDP on 127.0.0.1:50051',
    '  npm install && npm test     # the tests in test/',
  ];
}

/**
 * Runs `fw-gen init` with `argv` (after `init`).
 * @returns the exit code
 * @example
 * // npx fw-gen init my-service
 * // npx fw-gen init . --module commonjs
 */
export async function runInit(argv: readonly string[]): Promise<number> {
  const command = new Command('fw-gen init')
    .description('Scaffold a new fw service in dir (default: the current folder)')
    .argument('[dir]', 'folder to create the service in', '.')
    .option('--name <name>', 'service name (default: the folder name)')
    .option('--module <system>', 'esm or commonjs', 'esm')
    .option('--fw <spec>', 'how package.json depends on fw (default: as package.json or the enclosing project does, a tarball copied into vendor/; else this version)')
    .option('--fw-gen <spec>', 'how package.json depends on fw-gen, a dev dependency (default: as for --fw)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  try {
    command.parse([...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.code === 'commander.helpDisplayed' || e.code === 'commander.help' ? ExitCode.ok : ExitCode.usage;
    throw e;
  }
  try {
    const dir = path.resolve(process.cwd(), command.args[0] ?? '.');
    for (const line of await scaffold(dir, command.opts<InitOptions>())) process.stdout.write(`${line}\n`);
    return ExitCode.ok;
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    return ExitCode.usage;
  }
}
