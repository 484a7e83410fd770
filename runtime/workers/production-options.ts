/**
 * The production options shared by `createProtocolGateway` and
 * `server.http().withOptions()`: how many worker processes serve the port
 * (`workers`, env `FW_WORKERS`), how long readiness is false before the drain
 * begins (`drainDelay`, env `FW_DRAIN_DELAY_MS`), whether fw handles SIGTERM
 * itself (`handleSignals`), and the `HOST` / `PORT` defaults. An option given
 * in code wins over its environment variable; a bad value of either is a
 * clear error at start, never coerced.
 */
import { availableParallelism } from 'node:os';

/** `workers`: a count of processes, or `'auto'` for one per core the OS offers. */
export type WorkersOption = 'auto' | number;

/** The options, as both the gateway and an fw app take them. */
export interface ProductionOptions {
  /**
   * Serve from this many processes behind the one port (`'auto'`: one per
   * core); default `FW_WORKERS`, else one process and no supervisor.
   */
  workers?: WorkersOption;
  /** On shutdown, readiness is false for this long (ms) before the drain begins; default `FW_DRAIN_DELAY_MS`, else 0. */
  drainDelay?: number;
  /** fw drains and exits on SIGTERM and SIGINT itself; default true when `workers` is set, else false. */
  handleSignals?: boolean;
}

const MAX_WORKERS = 1024;

function fail(name: string, wanted: string, value: unknown): never {
  throw new RangeError(`${name} must be ${wanted}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
}

/** Reads an option's value from the environment: undefined when unset or empty. */
function fromEnv(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The number of worker processes asked for, or undefined for the plain single process. */
export function workerCount(option: WorkersOption | undefined, env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (option === undefined) {
    const text = fromEnv('FW_WORKERS', env);
    if (text === undefined) return undefined;
    if (text === 'auto') return availableParallelism();
    if (!/^\d+$/.test(text)) fail('FW_WORKERS', `'auto' or an integer from 1 to ${MAX_WORKERS}`, text);
    return workerCount(Number(text), {});
  }
  if (option === 'auto') return availableParallelism();
  if (typeof option !== 'number' || !Number.isInteger(option) || option < 1 || option > MAX_WORKERS) fail('workers', `'auto' or an integer from 1 to ${MAX_WORKERS}`, option);
  return option;
}

/** Throws a RangeError unless `value` is a non-negative finite number of ms. */
export function checkDrainDelay(value: unknown, name = 'drainDelay'): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(name, 'a non-negative number of ms', value);
  return value;
}

/** `drainDelay`, else `FW_DRAIN_DELAY_MS`, else 0. */
export function drainDelay(option: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (option !== undefined) return checkDrainDelay(option) ?? 0;
  const text = fromEnv('FW_DRAIN_DELAY_MS', env);
  if (text === undefined) return 0;
  if (!/^\d+(\.\d+)?$/.test(text)) fail('FW_DRAIN_DELAY_MS', 'a non-negative number of ms', text);
  return Number(text);
}

/** Checks the options' types where they are given (the gateway's constructor, `withOptions`). */
export function checkProductionOptions(options: ProductionOptions): void {
  if (options.workers !== undefined) workerCount(options.workers, {});
  checkDrainDelay(options.drainDelay);
  if (options.handleSignals !== undefined && typeof options.handleSignals !== 'boolean') fail('handleSignals', 'a boolean', options.handleSignals);
}

/** The port to bind when none is given in code: `PORT`, else `fallback`. */
export function envPort(fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const text = fromEnv('PORT', env);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 65535) fail('PORT', 'an integer from 0 to 65535', text);
  return Number(text);
}

/** The interface to bind when none is given in code: `HOST`, else `fallback`. */
export function envHost<T extends string | undefined>(fallback: T, env: NodeJS.ProcessEnv = process.env): string | T {
  return fromEnv('HOST', env) ?? fallback;
}
