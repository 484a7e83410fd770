#!/usr/bin/env node
/*
 * Instructions per call (callgrind) of each process in the forwarding
 * scenario (./forwarding.js): the fw instance answering direct calls, the
 * gateway passing bytes through to it, and the bare node:http2 proxy
 * (./bare-proxy.js) in front of it. On a shared, noisy machine /proc CPU time
 * per call moves by tens of percent between runs; this count repeats to a few
 * percent (garbage collection is the noise) and is what to steer by. It
 * counts every thread of the process (GC, JIT compilers) and no kernel time.
 *
 *   node test/bench/gateway/forwarding-instructions.js [instance|gateway|gateway-decoding|bare-proxy ...]
 *   env: WARM (warm-up calls, 10000), N (calls per part, 2000), PARTS (4; the first settles and is not counted)
 * Needs valgrind and h2load.
 */
'use strict';
const { spawn, fork, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { compileFw } = require('../support/compiled-fw');

const FORWARDING = path.join(__dirname, 'forwarding.js');
const BARE = path.join(__dirname, 'bare-proxy.js');
const METHOD = '/plainuser.UserService/CreateUser';
const WARM = Number(process.env.WARM ?? 10000);
const N = Number(process.env.N ?? 2000);
const PARTS = Number(process.env.PARTS ?? 4);

/** Starts one role (`args` to `file`), under callgrind when `counted`; resolves to { child, port }. */
function start(file, args, counted, outFile) {
  const child = counted
    ? spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`, `--log-file=${outFile}.log`, process.execPath, file, ...args], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    : fork(file, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in 120 s`)), 120_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve({ child, port: m.port });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

function load(port, file, calls) {
  const out = execFileSync('h2load', ['-n', String(calls), '-c', '8', '-m', '32', '-d', file, '-H', 'content-type: application/grpc', '-H', 'te: trailers', `http://127.0.0.1:${port}${METHOD}`]).toString();
  if (!new RegExp(` ${calls} succeeded, 0 failed, 0 errored`).test(out)) throw new Error(`calls failed:\n${out}`);
}

/** Instructions per call of `subject`: 'instance' (direct calls), 'gateway', 'gateway-decoding' or 'bare-proxy'. */
async function count(subject, requestFile, dir) {
  const out = path.join(dir, `${subject}.out`);
  const children = [];
  try {
    const instance = await start(FORWARDING, ['instance'], subject === 'instance', out);
    children.push(instance.child);
    let front = instance;
    if (subject !== 'instance') {
      front = subject === 'bare-proxy'
        ? await start(BARE, [String(instance.port)], true, out)
        : await start(FORWARDING, ['gateway', String(instance.port), subject === 'gateway' ? 'pass-through' : 'decoding'], true, out);
      children.push(front.child);
    }
    const counted = children[children.length - 1];
    const control = (...args) => execFileSync('callgrind_control', [...args, String(counted.pid)], { stdio: 'ignore' });
    load(front.port, requestFile, WARM);
    control('-i', 'on');
    load(front.port, requestFile, 500);
    control('-z');
    for (let p = 0; p < PARTS; p++) {
      load(front.port, requestFile, N);
      control('-d');
    }
    const dumps = fs.readdirSync(dir).filter((f) => new RegExp(`^${subject}\\.out\\.\\d+$`).test(f)).sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
    const perCall = dumps.map((f) => Math.round(Number(/\n(?:totals|summary): (\d+)/.exec(fs.readFileSync(path.join(dir, f), 'utf8'))?.[1]) / N));
    return perCall.slice(1);
  } finally {
    for (const c of children) c.kill('SIGKILL');
  }
}

async function main() {
  const subjects = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['instance', 'gateway', 'bare-proxy'];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-fwd-instr-'));
  // The instance and gateway run fw compiled, as deployed (../support/compiled-fw.js).
  compileFw([path.join(__dirname, 'generated')]);
  try {
    require(path.join(__dirname, '../../support/require-ts'));
    const { CreateUserRequest } = require(path.join(__dirname, 'generated/plain_user.ts'));
    const bytes = CreateUserRequest.encode({ name: 'Ada Lovelace', email: 'ada@example.com', phone: '', roles: ['admin'] }).finish();
    const framed = Buffer.alloc(5 + bytes.length);
    framed.writeUInt32BE(bytes.length, 1);
    Buffer.from(bytes).copy(framed, 5);
    const requestFile = path.join(dir, 'request.bin');
    fs.writeFileSync(requestFile, framed);
    const results = {};
    for (const s of subjects) {
      const parts = await count(s, requestFile, dir);
      results[s] = Math.min(...parts);
      console.log(`${s}: ${results[s]} instructions per call (parts: ${parts.join(', ')}; minimum reported)`);
    }
    if (results.instance !== undefined) {
      for (const s of subjects.filter((x) => x !== 'instance')) console.log(`${s} ÷ instance: ${(results[s] / results.instance).toFixed(2)}×`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
