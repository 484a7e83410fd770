#!/usr/bin/env node
/*
 * Runs the gateway forwarding scenario and prints its table.
 *   BENCH_DURATION=5 BENCH_CONCURRENCY=32 BENCH_ROUNDS=2 node test/bench/gateway/forwarding-run.js
 */
'use strict';
const { run, target } = require('./forwarding');

async function main() {
  const durationSeconds = Number(process.env.BENCH_DURATION ?? 5);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const { rows, ratio, cpuRatio } = await run({ durationSeconds, concurrency, rounds });
  console.log(`gateway forwarding (${durationSeconds} s per scenario, ${concurrency} calls in flight, best of ${rounds} rounds, small unary message)`);
  console.log('| scenario | calls/s | calls | errors | server CPU µs/call | load generator CPU µs/call |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const us = (v) => (v === undefined ? 'n/a' : v.toFixed(0));
  for (const r of rows) {
    console.log(`| ${r.scenario} | ${Math.round(r.rps)} | ${r.calls} | ${r.errors} | ${us(r.cpuMicrosPerCall)} | ${us(r.clientCpuMicrosPerCall)} |`);
  }
  console.log(`ratio gateway/direct, calls/s: ${ratio.toFixed(2)}× (target ≥ ${target}×) ${ratio >= target ? 'MET' : 'NOT MET'}`);
  if (cpuRatio !== undefined) console.log(`ratio gateway/direct, calls per server CPU-second: ${cpuRatio.toFixed(2)}×`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
