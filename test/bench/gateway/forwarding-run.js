#!/usr/bin/env node
/*
 * Runs the gateway forwarding scenario and prints its table.
 *   BENCH_DURATION=5 BENCH_CONCURRENCY=32 node test/bench/gateway/forwarding-run.js
 */
'use strict';
const { run, target } = require('./forwarding');

async function main() {
  const durationSeconds = Number(process.env.BENCH_DURATION ?? 5);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
  const { rows, ratio } = await run({ durationSeconds, concurrency });
  console.log(`gateway forwarding (${durationSeconds} s per scenario, ${concurrency} calls in flight, unary JSON-sized payload)`);
  console.log('| scenario | calls/s | calls | errors |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.scenario} | ${Math.round(r.rps)} | ${r.calls} | ${r.errors} |`);
  console.log(`ratio gateway/direct: ${ratio.toFixed(2)}× (target ≥ ${target}×) ${ratio >= target ? 'MET' : 'NOT MET'}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
