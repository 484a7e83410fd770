/**
 * One generation or `--check` run of fw-gen over parsed arguments: shared by
 * the command line (main.ts, also for every `--watch` re-run) and `fw-gen init`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExitCode, InputError } from './cli-error';
import { breakingChanges, parseBreakingCategory } from './breaking-check';
import { collectInputs } from './collect-inputs';
import { generate } from './generate';
import { detectModuleSystem, parseModuleFlag } from './module-system';
import { checkPlan, writePlan, type OutputTarget } from './output';
import { plural } from './plural';

/** The generation options of the command line. */
export interface CliOptions {
  out: string;
  stubs: string;
  module?: string;
  protoPath: string[];
  check: boolean;
  /** With `check`: also compare the protos with those at this git revision (`buf breaking`). */
  against?: string;
  /** The `buf breaking` category for `against`. */
  breaking?: string;
  watch: boolean;
  quiet: boolean;
}

/** One generation (or check) run; resolves to the exit code. */
export async function runOnce(args: readonly string[], options: CliOptions, cwd: string, log: (line: string) => void, err: (line: string) => void): Promise<number> {
  try {
    const inputs = collectInputs(args, options.protoPath, cwd);
    const outDir = path.resolve(cwd, options.out);
    const target: OutputTarget = {
      outDir,
      stubDir: path.resolve(cwd, options.stubs),
      cwd,
      pruneExtras: args.every((a) => fs.statSync(path.resolve(cwd, a)).isDirectory()),
    };
    const moduleSystem = detectModuleSystem(outDir, options.module === undefined ? undefined : parseModuleFlag(options.module)).system;
    if (options.against !== undefined && !options.check) throw new InputError('fw-gen: --against compares protos and is used with --check');
    const category = parseBreakingCategory(options.breaking ?? 'WIRE_JSON');
    const plan = await generate(inputs, cwd, moduleSystem);
    if (options.check) {
      const report = checkPlan(plan, target);
      for (const w of report.warnings) err(w);
      const breaking =
        options.against === undefined
          ? []
          : await breakingChanges({ args, protoPath: options.protoPath, cwd, ref: options.against, category, stubDir: target.stubDir });
      if (breaking.length > 0) {
        err(`fw-gen --check --against ${options.against ?? ''}: ${plural(breaking.length, `breaking change`)} (${category}):\n${breaking.map((b) => `  ${b}`).join('\n')}`);
      }
      if (report.changed.length === 0 && breaking.length > 0) return ExitCode.drift;
      if (report.changed.length === 0) {
        if (!options.quiet) log(`fw-gen: ${plural(plan.files.size, 'generated file')} and ${plural(plan.stubModels.length, 'stub')} ${plan.files.size + plan.stubModels.length === 1 ? 'is' : 'are'} up to date`);
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

