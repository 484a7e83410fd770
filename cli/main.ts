/**
 * `fw-gen` command line: `fw-gen <files|dirs…> [--out generated] [--stubs src] [--check [--against <git-ref>]] [--watch]`,
 * and `fw-gen init [dir]` for a new service (cli/init.ts).
 * Exit codes: 0 ok, 1 `--check` found drift, 2 usage or input error
 * (docs/codegen.md).
 */
// First: starts ts-proto while the modules below load (prestart.ts).
import './prestart';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError } from 'commander';
import { ExitCode } from './cli-error';
import { packageRoot } from './package-root';
import { runOnce, type CliOptions } from './run-once';
import { watchProtos } from './watch';

function version(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? '0.0.0';
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Runs the CLI with `argv` (without `node` and the script).
 * @returns the exit code, or never resolves in `--watch` mode until SIGINT
 * @example
 * // npx fw-gen proto --out generated --check
 */
export async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'init') {
    // Loaded only for this command: it needs nothing of the pipeline's start-up order.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { runInit } = require('./init') as typeof import('./init');
    return runInit(argv.slice(1));
  }
  const program = new Command('fw-gen')
    .description('Generate typed fw services, clients, gateway bindings and stubs from .proto files')
    .usage('[options] <paths...>\n       fw-gen init [dir]       scaffold a new service (fw-gen init --help)')
    .argument('<paths...>', '.proto files or directories (a directory is an import root)')
    .option('-o, --out <dir>', 'output directory for generated files', 'generated')
    .option('--stubs <dir>', 'directory for the editable x.service.ts stubs', 'src')
    .option('--module <system>', 'esm or commonjs (default: detected from package.json "type" and tsconfig "module")')
    .option('-I, --proto-path <dir>', 'extra import root (repeatable)', collect, [])
    .option('--check', 'compare instead of writing; exit 1 with a diff when anything is out of date', false)
    .option('--against <git-ref>', 'with --check: also fail on breaking changes since <git-ref> (buf breaking)')
    .option('--breaking <category>', 'buf breaking category for --against: FILE, PACKAGE, WIRE_JSON or WIRE', 'WIRE_JSON')
    .option('--watch', 're-run whenever a .proto changes', false)
    .option('-q, --quiet', 'print only warnings and errors', false)
    .version(version(), '-v, --version')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  if (argv.length === 0) {
    // No arguments: the usage, on stderr since nothing was done.
    process.stderr.write(program.helpInformation());
    return ExitCode.usage;
  }
  let parsed: { args: string[]; options: CliOptions };
  try {
    program.parse([...argv], { from: 'user' });
    parsed = { args: program.args, options: program.opts<CliOptions>() };
  } catch (e) {
    if (e instanceof CommanderError) {
      const ok = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
      return ok ? ExitCode.ok : ExitCode.usage;
    }
    throw e;
  }
  const cwd = process.cwd();
  const log = (l: string): void => void process.stdout.write(`${l}\n`);
  const err = (l: string): void => void process.stderr.write(`${l}\n`);
  const code = await runOnce(parsed.args, parsed.options, cwd, log, err);
  if (!parsed.options.watch || parsed.options.check) return code;
  log('fw-gen: watching for changes (Ctrl-C to stop)');
  return new Promise((resolve) => {
    // Runs never overlap: a change during a run schedules one more run after it.
    let running = false;
    let again = false;
    const rerun = (): void => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      void runOnce(parsed.args, parsed.options, cwd, log, err).finally(() => {
        running = false;
        if (again) {
          again = false;
          rerun();
        }
      });
    };
    const stop = watchProtos(
      parsed.args.map((a) => path.resolve(cwd, a)).filter((p) => fs.existsSync(p)),
      rerun,
    );
    process.once('SIGINT', () => {
      stop();
      resolve(ExitCode.ok);
    });
  });
}

// Run when executed directly or through the package's bin launcher (bin/fw-gen.js).
if (require.main === module || require.main?.filename.endsWith(path.join('bin', 'fw-gen.js')) === true) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
