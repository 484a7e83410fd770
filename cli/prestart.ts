/**
 * Imported first by main.ts for its side effect: when this process is the
 * fw-gen CLI about to generate or check, ts-proto starts loading in its
 * worker before the rest of the CLI (commander, the pipeline) is loaded.
 * ts-proto's start-up is the longest stage of a small run, so every
 * millisecond it starts earlier is one off the total. `--help`,
 * `--version` and argument-less runs start nothing.
 */
import * as path from 'node:path';
import { prestartTsProto } from './run-ts-proto';

/** True when `argv` (without `node` and the script) asks for a generation or check run. */
export function wantsGeneration(argv: readonly string[]): boolean {
  if (argv.length === 0) return false;
  return !argv.some((a) => a === '-h' || a === '--help' || a === '-v' || a === '--version');
}

/**
 * Starts ts-proto ahead of time when `argv` asks for generation.
 * @example
 * prestartFor(process.argv.slice(2));
 */
export function prestartFor(argv: readonly string[]): void {
  if (wantsGeneration(argv)) prestartTsProto();
}

// Same entry test as main.ts: run directly or through bin/fw-gen.js.
const entry = require.main?.filename ?? '';
if (entry === path.join(__dirname, 'main.js') || entry.endsWith(path.join('bin', 'fw-gen.js'))) prestartFor(process.argv.slice(2));
