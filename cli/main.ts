/**
 * `fw-gen` command line: `fw-gen <files|dirs…> [--out generated] [--check] [--watch]`.
 * Exit codes: 0 ok, 1 `--check` found drift, 2 usage or input error
 * (docs/codegen.md).
 */
// First: starts ts-proto while the modules below load (prestart.ts).
import './prestart';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError } from 'commander';
import { ExitCode, InputError } from './cli-error';
import { collectInputs } from './collect-inputs';
import { generate } from './generate';
import { checkPlan, writePlan, type OutputTarget } from './output';
import { packageRoot } from './package-root';
import { watchProtos } from './watch';

interface CliOptions {
  out: string;
  stubs?: string;
  protoPath: string[];
  check: boolean;
  watch: boolean;
  quiet: boolean;
}

function version(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? '0.0.0';
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** One generation (or check) run; resolves to the exit code. */
export async function runOnce(args: readonly string[], options: CliOptions, cwd: string, log: (line: string) => void, err: (line: string) => void): Promise<number> {
  try {
    const inputs = collectInputs(args, options.protoPath, cwd);
    const outDir = path.resolve(cwd, options.out);
    const target: OutputTarget = {
      outDir,
      stubDir: options.stubs === undefined ? outDir : path.resolve(cwd, options.stubs),
      cwd,
      pruneExtras: args.every((a) => fs.statSync(path.resolve(cwd, a)).isDirectory()),
    };
    const plan = await generate(inputs, cwd);
    if (options.check) {
      const report = checkPlan(plan, target);
      for (const w of report.warnings) err(w);
      if (report.changed.length === 0) {
        if (!options.quiet) log(`fw-gen: ${plan.files.size} generated files and ${plan.stubModels.length} stubs are up to date`);
        return ExitCode.ok;
      }
      for (const d of report.diffs) log(d);
      err(`fw-gen --check: generated code is out of date:\n${report.changed.map((c) => `  ${c}`).join('\n')}\nrun fw-gen without --check to update it`);
      return ExitCode.drift;
    }
    const report = writePlan(plan, target);
    for (const w of report.warnings) err(w);
    if (!options.quiet) {
      if (report.changed.length === 0) log('fw-gen: everything up to date');
      else for (const c of report.changed) log(`fw-gen: wrote ${c}`);
    }
    return ExitCode.ok;
  } catch (e) {
    if (e instanceof InputError) {
      err(e.message);
      return ExitCode.usage;
    }
    // Anything else (unwritable output, a failing plugin) is reported by its
    // message; FW_GEN_DEBUG=1 adds the stack.
    const message = e instanceof Error ? (process.env['FW_GEN_DEBUG'] === '1' ? (e.stack ?? e.message) : e.message) : String(e);
    err(message.startsWith('fw-gen') ? message : `fw-gen: ${message}`);
    return ExitCode.usage;
  }
}

/**
 * Runs the CLI with `argv` (without `node` and the script).
 * @returns the exit code, or never resolves in `--watch` mode until SIGINT
 * @example
 * // npx fw-gen proto --out generated --check
 */
export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command('fw-gen')
    .description('Generate typed fw services, clients, gateway bindings and stubs from .proto files')
    .argument('<paths...>', '.proto files or directories (a directory is an import root)')
    .option('-o, --out <dir>', 'output directory for generated files', 'generated')
    .option('--stubs <dir>', 'directory for the editable x.service.ts stubs (default: --out)')
    .option('-I, --proto-path <dir>', 'extra import root (repeatable)', collect, [])
    .option('--check', 'compare instead of writing; exit 1 with a diff when anything is out of date', false)
    .option('--watch', 're-run whenever a .proto changes', false)
    .option('-q, --quiet', 'print only warnings and errors', false)
    .version(version(), '-v, --version')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
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
