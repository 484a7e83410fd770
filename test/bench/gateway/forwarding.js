/*
 * Gateway forwarding scenario: gRPC calls to an fw instance directly vs the
 * same calls through a gateway that found the instance through service
 * discovery (static provider, the service known by its fw-gen descriptor).
 * The instance is fw's `server.grpc()`, compiled as deployed
 * (../support/compiled-fw.js), serving plainuser.UserService/CreateUser (test/bench/gateway/generated,
 * no buf.validate rules), so the gateway forwards the message bytes without
 * decoding them (runtime/gateway/pass-through.ts). A second gateway with one
 * interceptor installed (which sees the decoded request) shows what decoding
 * and re-encoding would cost.
 *
 * The figures that matter:
 * - the gateway's CPU per forwarded call against the instance's CPU per call
 *   (from /proc/<pid>/stat utime+stime over each slice; target ≤ 1×);
 * - calls/s through the gateway against direct (reported);
 * - a bare node:http2 proxy (./bare-proxy.js) in front of the same instance:
 *   the CPU any gateway on node:http2 pays for a server and a client stream
 *   per call, before doing anything. The gateway against it is what fw adds.
 *
 * Load: h2load (nghttp2-client) when installed, else a Node HTTP/2 load
 * generator (../grpc/h2-load.js), the same pre-framed request each call,
 * BENCH_CONNECTIONS × BENCH_STREAMS calls in flight. The paths take the load
 * in turn in slices whose order reverses each pass (../support/interleave.js);
 * figures are medians over passes, ratios medians of within-pass ratios.
 *
 * No CPU pinning (test/bench/support/cpu-pin.js is not used here, on
 * purpose): the forwarded path has two server processes, and pinning both to
 * one core would measure them sharing it. Unpinned, each path may use both
 * cores, which is the question the calls/s ratio asks (how much throughput a
 * client loses by going through the gateway on this machine). The CPU-per-call
 * figures do not depend on it.
 *
 * Exports run({ sliceSeconds, passes }) → { rows, ratio, cpuRatio } for a
 * bench runner; forwarding-run.js is the command-line entry.
 */
'use strict';
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const { interleave, pairedRatio, medianOf } = require('../support/interleave');
const { h2Load, hasH2load } = require('../grpc/h2-load');
const { cpuSeconds } = require('../support/process-cpu');
const { compileFw, benchModule } = require('../support/compiled-fw');

const ROOT = path.resolve(__dirname, '../../..');
const METHOD = '/plainuser.UserService/CreateUser';
const REQUEST = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '', roles: ['admin'] };

/* ---------- child roles ---------- */

function descriptor() {
  return require(benchModule(path.join(__dirname, 'generated/plain_user.fw.ts'))).UserServiceDescriptor;
}

async function runInstance() {
  const UserServiceDescriptor = descriptor();
  const { server } = require('fw');
  const app = server.grpc().addService(UserServiceDescriptor, {
    async createUser(req) {
      return { id: '42', name: req.name, email: req.email, phone: req.phone, address: undefined, roles: req.roles, createdAt: undefined, updatedAt: undefined };
    },
  });
  const { port } = await app.listen(0, '127.0.0.1');
  process.send({ port });
}

async function runGateway(instancePort, mode) {
  const UserServiceDescriptor = descriptor();
  const { ProtocolGateway } = require('fw');
  const gateway = new ProtocolGateway({ enableUDP: false });
  gateway.configureServiceDiscovery({
    provider: 'static',
    services: { UserService: { descriptor: UserServiceDescriptor, instances: [{ host: '127.0.0.1', port: instancePort }] } },
  });
  // An interceptor sees call.request, so every call is decoded and re-encoded.
  if (mode === 'decoding') gateway.use((call, next) => next());
  const address = await gateway.listen(0, '127.0.0.1');
  // A clean exit on SIGINT lets `node --cpu-prof` write the gateway's profile.
  process.once('SIGINT', () => process.exit(0));
  process.send({ port: address.port });
}

/* ---------- parent ---------- */

function start(args, file = __filename) {
  const child = fork(file, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start in 30 s`)), 30_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve({ child, port: m.port });
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

/** The request, framed, in a file (h2load posts a file). */
function requestFile(dir) {
  require(path.join(ROOT, 'test/support/require-ts'));
  const { CreateUserRequest } = require(path.join(__dirname, 'generated/plain_user.ts'));
  const bytes = CreateUserRequest.encode(REQUEST).finish();
  const framed = Buffer.alloc(5 + bytes.length);
  framed.writeUInt32BE(bytes.length, 1);
  Buffer.from(bytes).copy(framed, 5);
  const file = path.join(dir, 'create-user.bin');
  fs.writeFileSync(file, framed);
  return file;
}

/** One checked call (h2load only sees HTTP status): the reply must be the instance's. */
function check(port) {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const { CreateUserRequest, User } = require(path.join(__dirname, 'generated/plain_user.ts'));
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(METHOD, (v) => Buffer.from(CreateUserRequest.encode(v).finish()), (b) => User.decode(b), REQUEST, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (error, user) => {
      client.close();
      if (error) reject(error);
      else if (user.id !== '42' || user.name !== REQUEST.name) reject(new Error(`unexpected reply ${JSON.stringify(user)}`));
      else resolve();
    });
  });
}

async function run({ sliceSeconds = 2, passes = 6, connections = 8, streams = 32 } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-bench-fwd-'));
  // Instance and gateways run fw compiled, as deployed (../support/compiled-fw.js).
  compileFw([path.join(__dirname, 'generated')]);
  const children = [];
  try {
    const file = requestFile(dir);
    const useH2load = hasH2load();
    const instance = await start(['instance']);
    children.push(instance.child);
    const passing = await start(['gateway', String(instance.port), 'pass-through']);
    children.push(passing.child);
    const decoding = await start(['gateway', String(instance.port), 'decoding']);
    children.push(decoding.child);
    const bare = await start([String(instance.port)], path.join(__dirname, 'bare-proxy.js'));
    children.push(bare.child);
    for (const p of [instance.port, passing.port, decoding.port, bare.port]) await check(p);

    const subject = (name, port, gatewayPid) => ({
      name,
      measure: async (ms) => {
        const i0 = cpuSeconds(instance.child.pid);
        const g0 = gatewayPid === undefined ? 0 : cpuSeconds(gatewayPid);
        const r = await h2Load({ useH2load, port, path: METHOD, file, ms, connections, streams });
        const i1 = cpuSeconds(instance.child.pid);
        const g1 = gatewayPid === undefined ? 0 : cpuSeconds(gatewayPid);
        const per = (cpu) => (cpu === undefined || r.calls === 0 ? NaN : (cpu * 1e6) / r.calls);
        return { rps: r.rps, errors: r.errors, instanceCpu: per(i1 - i0), gatewayCpu: gatewayPid === undefined ? NaN : per(g1 - g0) };
      },
    });
    const subjects = [subject('direct', instance.port), subject('gateway', passing.port, passing.child.pid), subject('gateway-decoding', decoding.port, decoding.child.pid), subject('bare-proxy', bare.port, bare.child.pid)];
    for (const s of subjects) await s.measure(2000); // warm-up: JIT, connections
    const samples = await interleave(subjects, {
      passes,
      sliceMs: sliceSeconds * 1000,
      rewarmMs: 500,
      onPass: (pass, got) => console.error(`forwarding pass ${pass + 1}/${passes}: ${subjects.map((s) => `${s.name} ${Math.round(got.get(s.name)[pass].rps)}`).join(', ')} calls/s`),
    });
    const errors = subjects.reduce((n, s) => n + samples.get(s.name).reduce((m, x) => m + x.errors, 0), 0);
    const withRatio = (name) => {
      const list = samples.get(name);
      return list.map((x) => ({ ...x, cpuRatio: x.gatewayCpu / x.instanceCpu }));
    };
    samples.set('gateway', withRatio('gateway'));
    samples.set('gateway-decoding', withRatio('gateway-decoding'));
    samples.set('bare-proxy', withRatio('bare-proxy'));
    // The gateway's CPU per call against the bare proxy's in the same pass: what fw adds to the node:http2 floor.
    samples.set('gateway', samples.get('gateway').map((x, i) => ({ ...x, overFloor: x.gatewayCpu / samples.get('bare-proxy')[i].gatewayCpu })));
    const row = (scenario, name) => ({
      scenario,
      rps: medianOf(samples, name),
      instanceCpu: medianOf(samples, name, 'instanceCpu'),
      gatewayCpu: medianOf(samples, name, 'gatewayCpu'),
    });
    return {
      loadGenerator: useH2load ? 'h2load' : 'Node HTTP/2 load generator',
      errors,
      ratio: pairedRatio(samples, 'gateway', 'direct'),
      decodingRatio: pairedRatio(samples, 'gateway-decoding', 'direct'),
      cpuRatio: medianOf(samples, 'gateway', 'cpuRatio'),
      decodingCpuRatio: medianOf(samples, 'gateway-decoding', 'cpuRatio'),
      floorCpuRatio: medianOf(samples, 'bare-proxy', 'cpuRatio'),
      overFloor: medianOf(samples, 'gateway', 'overFloor'),
      bareRatio: pairedRatio(samples, 'bare-proxy', 'direct'),
      rows: [
        row('gRPC client → fw instance (direct)', 'direct'),
        row('gRPC client → gateway → discovered fw instance (bytes passed through)', 'gateway'),
        row('same, one interceptor installed (decoded and re-encoded)', 'gateway-decoding'),
        row('reference: gRPC client → bare node:http2 proxy (bare-proxy.js) → fw instance', 'bare-proxy'),
      ],
    };
  } finally {
    for (const c of children) c.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { run, name: 'forwarding', target: 1 };

if (require.main === module) {
  const [role, ...rest] = process.argv.slice(2);
  const fail = (e) => {
    console.error(e);
    process.exit(1);
  };
  if (role === 'instance') runInstance().catch(fail);
  else if (role === 'gateway') runGateway(Number(rest[0]), rest[1]).catch(fail);
}
