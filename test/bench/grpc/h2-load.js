/**
 * Drives one gRPC method with the same pre-framed request for `ms`,
 * `connections` × `streams` calls in flight: with h2load (nghttp2-client)
 * when `useH2load`, else with a small Node HTTP/2 client. Resolves to
 * { rps, calls, errors, dataBytesPerSecond } (response DATA bytes, which
 * counts streamed messages of calls still running when the time is up). Shared by bench:grpc and the gateway forwarding bench.
 */
'use strict';
const fs = require('node:fs');
const http2 = require('node:http2');
const { execFile, execFileSync } = require('node:child_process');

function viaH2load({ port, path, file, ms, connections, streams }) {
  const args = ['-c', String(connections), '-m', String(streams), '-D', `${Math.max(1, Math.round(ms))}ms`, '-d', file,
    '-H', 'content-type: application/grpc', '-H', 'te: trailers', `http://127.0.0.1:${port}${path}`];
  return new Promise((resolve, reject) => {
    execFile('h2load', args, { timeout: ms + 30_000, maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error) return reject(new Error(`h2load failed: ${error.message}\n${stdout}`));
      const done = /requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(stdout);
      const finished = /finished in ([\d.]+)(m?s)/.exec(stdout);
      if (!done || !finished) return reject(new Error(`unexpected h2load output:\n${stdout}`));
      const seconds = Number(finished[1]) / (finished[2] === 'ms' ? 1000 : 1);
      const calls = Number(done[2]);
      const traffic = /traffic: .*\((\d+)\) data/.exec(stdout);
      resolve({ rps: calls / seconds, calls, errors: Number(done[3]) + Number(done[4]), dataBytesPerSecond: traffic ? Number(traffic[1]) / seconds : NaN });
    });
  });
}

async function viaNode({ port, path, file, ms, connections, streams }) {
  const body = fs.readFileSync(file);
  const headers = { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' };
  const sessions = Array.from({ length: connections }, () => http2.connect(`http://127.0.0.1:${port}`));
  await Promise.all(sessions.map((s) => new Promise((resolve, reject) => s.once('connect', resolve).once('error', reject))));
  let calls = 0;
  let errors = 0;
  let dataBytes = 0;
  const started = Date.now();
  const end = started + ms;
  const one = (session) => new Promise((resolve) => {
    const stream = session.request(headers);
    let ok = false;
    stream.on('response', (h) => (ok = h[':status'] === 200 && (h['grpc-status'] === undefined || h['grpc-status'] === '0')));
    stream.on('trailers', (t) => (ok = ok && t['grpc-status'] === '0'));
    stream.on('data', (chunk) => (dataBytes += chunk.length));
    stream.on('error', () => undefined);
    stream.on('close', () => {
      if (ok) calls += 1;
      else errors += 1;
      resolve();
    });
    stream.end(body);
  });
  const loop = async (session) => {
    while (Date.now() < end) await one(session);
  };
  await Promise.all(sessions.flatMap((s) => Array.from({ length: streams }, () => loop(s))));
  const seconds = (Date.now() - started) / 1000;
  for (const s of sessions) s.close();
  return { rps: calls / seconds, calls, errors, dataBytesPerSecond: dataBytes / seconds };
}

/** True when h2load can be run (and BENCH_LOADGEN=node does not ask for the Node generator). */
function hasH2load() {
  if (process.env.BENCH_LOADGEN === 'node') return false;
  try {
    execFileSync('h2load', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function h2Load(options) {
  return options.useH2load ? viaH2load(options) : viaNode(options);
}

module.exports = { h2Load, hasH2load };
