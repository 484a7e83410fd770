/**
 * Interop with clients nobody here wrote: Python grpcio (message classes from
 * proto/user.proto's descriptors, built with buf at test time — the Debian
 * grpc_tools bundles protoc 3.5, which cannot read proto3 `optional`), a Python
 * standard-library socket script speaking the UDP/TCP frames exactly as
 * docs/protocols.md describes, and curl for HTTP — all against one gateway
 * serving the generated user service.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ProtocolGateway } from 'fw';
import { UserServiceDescriptor } from '../../../generated/user.fw';
import { UserServiceImpl } from '../../../examples/user-service/user.service';
import { PEERS, PYTHON as PY, requirePeers } from '../../support/peers';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');
const HOST = '127.0.0.1';

requirePeers(PEERS.grpcio, PEERS.curl)('gateway interop: grpcio, Python sockets, curl', () => {
  let gateway: ProtocolGateway;
  let port: number;
  let stubs: string;

  beforeAll(async () => {
    gateway = new ProtocolGateway({});
    gateway.addService(UserServiceDescriptor, new UserServiceImpl());
    port = (await gateway.listen(0, HOST)).port as number;
    // The real proto as a FileDescriptorSet: buf builds it from a temp root holding
    // user.proto and the annotation protos it imports (DESIGN.md, fw-gen facts).
    stubs = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-gw-py-'));
    const src = path.join(stubs, 'src');
    const copies: [string, string][] = [
      ['proto/user.proto', 'user.proto'],
      ['cli/protos/buf/validate/validate.proto', 'buf/validate/validate.proto'],
      ['node_modules/google-proto-files/google/api/annotations.proto', 'google/api/annotations.proto'],
      ['node_modules/google-proto-files/google/api/http.proto', 'google/api/http.proto'],
    ];
    for (const [from, to] of copies) {
      fs.mkdirSync(path.dirname(path.join(src, to)), { recursive: true });
      fs.copyFileSync(path.join(root, from), path.join(src, to));
    }
    const buf = path.join(root, 'node_modules/@bufbuild/buf-linux-x64/bin/buf');
    await run(fs.existsSync(buf) ? buf : path.join(root, 'node_modules/.bin/buf'), ['build', src, '-o', path.join(stubs, 'user.binpb')], { timeout: 60_000 });
  }, 90_000);

  afterAll(async () => {
    await gateway?.close();
    if (stubs !== undefined) fs.rmSync(stubs, { recursive: true, force: true });
  });

  it('Python grpcio calls unary, server-streaming and client-streaming RPCs and sees proper statuses', async () => {
    const { stdout } = await run(PY, [path.join(__dirname, 'fixtures/grpcio_client.py'), path.join(stubs, 'user.binpb'), `${HOST}:${port}`], { timeout: 60_000 });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out.created).toMatchObject({ name: 'Py', email: 'py@example.com', roles: ['admin'] });
    expect(out.traceId).toBe('py-trace-1');
    expect(out.got).toMatchObject({ name: 'Py', hasCreatedAt: true });
    expect(out.listed).toContain('Py');
    expect(out.batchCount).toBe(2);
    expect(out.missing).toBe('NOT_FOUND');
    expect(out.missingErrorCode).toBe('NOT_FOUND');
    expect(out.invalid).toBe('INVALID_ARGUMENT');
    // grpc-status-details-bin, decoded by Python's protobuf: a google.rpc.Status whose detail is a BadRequest.
    expect(out.invalidStatus).toEqual({ code: 3, typeUrls: ['type.googleapis.com/google.rpc.BadRequest'] });
    expect(out.invalidViolations).toEqual([
      ['name', 'required'],
      ['email', 'string.email'],
    ]);
  }, 90_000);

  it('a Python socket script speaks the documented UDP and TCP frames', async () => {
    const { stdout } = await run(PY, [path.join(__dirname, 'fixtures/frames_client.py'), HOST, String(port)], { timeout: 60_000 });
    const out = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    expect(out.udpCreate).toEqual({ version: 1, type: 2, id: 'u1', name: 'Udp' });
    expect(out.udpMissing).toEqual({ type: 3, code: 'NOT_FOUND' });
    expect(out.udpMalformed).toEqual({ type: 3, code: 'MALFORMED_FRAME' });
    expect(out.tcpList?.names).toContain('Udp');
    expect(out.tcpList?.endType).toBe(5);
    expect(out.tcpBatch).toEqual({ type: 2, count: 3 });
    expect(out.tcpTooLarge).toEqual({ type: 3, code: 'FRAME_TOO_LARGE' });
  }, 90_000);

  it('curl creates, reads and streams over HTTP with trace ids', async () => {
    const base = `http://${HOST}:${port}`;
    const created = await run('curl', ['-sS', '-X', 'POST', `${base}/users`, '-H', 'Content-Type: application/json', '-d', '{"name":"Curl","email":"curl@example.com"}'], { timeout: 20_000 });
    const user = JSON.parse(created.stdout) as { id: string; name: string };
    expect(user.name).toBe('Curl');
    const got = await run('curl', ['-sS', '-i', '-H', 'X-Trace-ID: curl-trace', `${base}/users/${user.id}`], { timeout: 20_000 });
    expect(got.stdout).toMatch(/^x-trace-id: curl-trace\r?$/im);
    expect(got.stdout).toContain('"name":"Curl"');
    const missing = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', `${base}/users/nope`], { timeout: 20_000 });
    expect(missing.stdout).toBe('404');
    const sse = await run('curl', ['-sS', '-N', '-H', 'Accept: text/event-stream', `${base}/users?limit=100`], { timeout: 20_000 });
    expect(sse.stdout).toContain('"name":"Curl"');
    expect(sse.stdout.trim().endsWith('event: end\ndata: {}')).toBe(true);
    const ndjson = await run('curl', ['-sS', '-N', `${base}/users?limit=100`], { timeout: 20_000 });
    expect(ndjson.stdout.trim().split('\n').map((l) => JSON.parse(l) as { result: { name: string } }).map((l) => l.result.name)).toContain('Curl');
    const form = await run('curl', ['-sS', '-w', '\n%{http_code}', '-X', 'POST', `${base}/users`, '-d', '{"name":"Form","email":"form@example.com"}'], { timeout: 20_000 });
    const [formBody, formStatus] = form.stdout.split('\n');
    expect(formStatus).toBe('415');
    expect(JSON.parse(formBody ?? '')).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
  }, 90_000);
});
