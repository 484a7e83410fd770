/**
 * `withOptions({grpc: {tls}})`: the server speaks TLS with the given
 * certificate; a client trusting it calls through, a plaintext client cannot.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { createGrpcClient } from 'fw/grpc-client';
import { GrpcStatus } from 'fw/grpc';
import { newApp, stopAll } from './fixtures/servers';
import { PEERS, requirePeers } from '../support/peers';

type Msg = Record<string, unknown>;

function openssl(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => execFile('openssl', args, { timeout: 20_000 }, (error) => (error ? reject(error) : resolve())));
}

requirePeers(PEERS.openssl)('gRPC over TLS', () => {
  let dir: string;
  afterAll(async () => {
    await stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves TLS clients and refuses plaintext ones', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-grpc-tls-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']);
    const app = newApp()
      .withOptions({ grpc: { tls: { cert: fs.readFileSync(cert, 'utf8'), key: fs.readFileSync(key) } } })
      .addService({ name: 'Secure', methods: { Ping: { handler: async () => ({ pong: true }) } } });
    const { port } = await app.listen(0, '127.0.0.1');
    const service = { name: 'Secure', methods: { Ping: 'none' as const } };
    const secure = createGrpcClient<{ ping(r: Msg, o?: object): Promise<Msg>; close(): void }>({
      address: `127.0.0.1:${port}`,
      credentials: credentials.createSsl(fs.readFileSync(cert)),
      service,
    });
    await expect(secure.ping({})).resolves.toEqual({ pong: true });
    const plain = createGrpcClient<{ ping(r: Msg, o?: object): Promise<Msg>; close(): void }>({ address: `127.0.0.1:${port}`, credentials: 'insecure', service });
    await expect(plain.ping({}, { deadline: 3000 })).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
    secure.close();
    plain.close();
  }, 30_000);
});
