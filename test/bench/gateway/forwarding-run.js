#!/usr/bin/env node
/*
 * Runs the gateway forwarding scenario (./forwarding.js) and prints its table.
 *   BENCH_SLICE=2 BENCH_PASSES=6 BENCH_CONNECTIONS=8 BENCH_STREAMS=32 node test/bench/gateway/forwarding-run.js
 */
'use strict';
const { run, target } = require('./forwarding');

async function main() {
  const sliceSeconds = Number(process.env.BENCH_SLICE ?? 2);
  const passes = Number(process.env.BENCH_PASSES ?? 6);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
  const streams = Number(process.env.BENCH_STREAMS ?? 32);
  const r = await run({ sliceSeconds, passes, connections, streams });
  const us = (v) => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(1));
  console.log(`\ngateway forwarding: ${r.loadGenerator}, ${connections} connections × ${streams} streams, ${passes} interleaved passes of ${sliceSeconds} s, unpinned; medians (ratios: medians of within-pass ratios)`);
  console.log('| path | calls/s | instance CPU µs/call | gateway CPU µs/call |');
  console.log('|---|---:|---:|---:|');
  for (const row of r.rows) console.log(`| ${row.scenario} | ${Math.round(row.rps)} | ${us(row.instanceCpu)} | ${us(row.gatewayCpu)} |`);
  console.log(`gateway CPU per forwarded call ÷ instance CPU per call: ${us(r.cpuRatio)}× (target ≤ ${target}×) ${r.cpuRatio <= target ? 'MET' : 'NOT MET'}; with an interceptor (decoding): ${us(r.decodingCpuRatio)}×`);
  console.log(`calls/s through the gateway ÷ direct: ${r.ratio.toFixed(2)}× (decoding: ${r.decodingRatio.toFixed(2)}×)`);
  if (r.errors > 0) console.log(`failed calls during the run: ${r.errors}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
