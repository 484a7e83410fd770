/**
 * Every gateway transport is an adapter of the one interface
 * (runtime/gateway/transport-adapter.ts) and its folder has the shared file
 * set: a new transport folder fails here until it is listed, implements the
 * interface (checked by the compiler through ADAPTERS' type) and has its files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConnectTransport } from '../../runtime/gateway/connect/transport';
import { GrpcTransport } from '../../runtime/gateway/grpc/transport';
import { HttpTransport } from '../../runtime/gateway/http/transport';
import { TcpTransport } from '../../runtime/gateway/tcp/transport';
import type { TransportAdapter, TransportName } from '../../runtime/gateway/transport-adapter';
import { UdpTransport } from '../../runtime/gateway/udp/transport';
import { WebSocketTransport } from '../../runtime/gateway/websocket/transport';

/** Each transport folder's adapter class; the type makes the compiler check each one implements the interface. */
const ADAPTERS: Record<TransportName, abstract new (...args: never[]) => TransportAdapter> = {
  http: HttpTransport,
  connect: ConnectTransport,
  websocket: WebSocketTransport,
  grpc: GrpcTransport,
  udp: UdpTransport,
  tcp: TcpTransport,
};

/** The files every transport folder has. */
const SHARED_FILES = ['transport.ts', 'context.ts'];

const gateway = path.resolve(__dirname, '../../runtime/gateway');
/** Folders of runtime/gateway that are not transports. */
const NOT_TRANSPORTS = new Set(['auth', 'discovery', 'monitoring', 'mux', 'session', 'wire']);

describe('transport adapters', () => {
  const folders = fs.readdirSync(gateway, { withFileTypes: true }).filter((e) => e.isDirectory() && !NOT_TRANSPORTS.has(e.name)).map((e) => e.name);

  it('lists every transport folder, and only those', () => {
    expect(folders.sort()).toEqual(Object.keys(ADAPTERS).sort());
  });

  it.each(Object.entries(ADAPTERS))('%s implements drain and close, and its folder has the shared files', (name, adapter) => {
    expect(typeof adapter.prototype.drain).toBe('function');
    expect(typeof adapter.prototype.close).toBe('function');
    for (const file of SHARED_FILES) expect(fs.existsSync(path.join(gateway, name, file))).toBe(true);
    const source = fs.readFileSync(path.join(gateway, name, 'transport.ts'), 'utf8');
    expect(source).toContain(`readonly transport = '${name}' as const;`);
  });
});
