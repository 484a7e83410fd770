'use strict';
/**
 * Keeps the server under test and the load generator on different cores.
 *
 * On a two-core machine the two otherwise share both cores, and req/s then
 * measures who the scheduler favoured as much as the server: the same fw
 * build moved by ±10% between runs. With `taskset` (util-linux) the bench
 * process and its threads go to the last core and every server to core 0, so
 * each framework gets one whole core and the client the other.
 *
 *   BENCH_PIN=0 npm run bench:http   # turn it off
 */
const { execFileSync } = require('node:child_process');
const os = require('node:os');

function tasksetWorks() {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const CORES = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
const ENABLED = process.env.BENCH_PIN !== '0' && CORES >= 2 && tasksetWorks();
const SERVER_CORE = 0;
const CLIENT_CORE = CORES - 1;

/** Moves this process (all its threads) to the client core; call once at start. */
function pinLoadGenerator() {
  if (!ENABLED) return;
  execFileSync('taskset', ['-a', '-p', '-c', String(CLIENT_CORE), String(process.pid)], { stdio: 'ignore' });
}

/** `[command, args]` that run `node ...args` on the server core. */
function serverCommand(args) {
  return ENABLED ? ['taskset', ['-c', String(SERVER_CORE), process.execPath, ...args]] : [process.execPath, args];
}

/** Options for `child_process.fork` that start the child on the server core. */
function serverForkOptions(options = {}) {
  if (!ENABLED) return options;
  return { ...options, execPath: 'taskset', execArgv: ['-c', String(SERVER_CORE), process.execPath, ...(options.execArgv ?? process.execArgv)] };
}

/** One line for the report. */
function describePinning() {
  return ENABLED ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}` : 'no CPU pinning';
}

module.exports = { pinLoadGenerator, serverCommand, serverForkOptions, describePinning, PINNED: ENABLED };
