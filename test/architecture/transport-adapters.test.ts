/**
 * Every gateway transport is an adapter of the one interface
 * (runtime/gateway/transport-adapter.ts), has a row in the adapter table,
 * writes replies through a ReplySink and has the shared file set: a new
 * transport folder fails here until it is listed, implements the interfaces
 * (checked by the compiler through ADAPTERS' and REPLY_SINKS' types) and has
 * its files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ADAPTER_TABLE } from '../../runtime/gateway/adapter-table';
import type { WebRpcReplySink } from '../../runtime/gateway/connect/reply-sink';
import { ConnectTransport } from '../../runtime/gateway/connect/transport';
import type { GrpcReplySink } from '../../runtime/gateway/grpc/reply-sink';
import { GrpcTransport } from '../../runtime/gateway/grpc/transport';
import { HttpReplySink } from '../../runtime/gateway/http/reply-sink';
import { HttpTransport } from '../../runtime/gateway/http/transport';
import { EnvelopeCall } from '../../runtime/gateway/session/envelope-call';
import type { EnvelopeReplies } from '../../runtime/gateway/session/envelope-replies';
import type { tcpReplies } from '../../runtime/gateway/tcp/reply-sink';
import { TcpTransport } from '../../runtime/gateway/tcp/transport';
import type { ReplySink, TransportAdapter, TransportName } from '../../runtime/gateway/transport-adapter';
import { DatagramReplySink } from '../../runtime/gateway/udp/reply-sink';
import { UdpTransport } from '../../runtime/gateway/udp/transport';
import type { websocketReplies } from '../../runtime/gateway/websocket/reply-sink';
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
const SHARED_FILES = ['transport.ts', 'context.ts', 'call-reader.ts', 'reply-sink.ts'];

/** True when `Sink` implements ReplySink, for whatever message type it carries. */
type IsReplySink<Sink> = Sink extends ReplySink<never> ? true : false;

/** The multiplexed transports' reply-sink.ts builds EnvelopeReplies; each call answers through an EnvelopeCall over them. */
type EnvelopeCallOver<Factory extends (...args: never[]) => EnvelopeReplies> = ReturnType<Factory> extends EnvelopeReplies ? EnvelopeCall : never;

/** Each folder's per-call reply sink; the compiler checks every one is a ReplySink. */
const REPLY_SINKS: Record<TransportName, true> = {
  http: true satisfies IsReplySink<HttpReplySink>,
  connect: true satisfies IsReplySink<WebRpcReplySink>,
  websocket: true satisfies IsReplySink<EnvelopeCallOver<typeof websocketReplies>>,
  tcp: true satisfies IsReplySink<EnvelopeCallOver<typeof tcpReplies>>,
  udp: true satisfies IsReplySink<DatagramReplySink>,
  grpc: true satisfies IsReplySink<GrpcReplySink>,
};

const gateway = path.resolve(__dirname, '../../runtime/gateway');
/** Folders of runtime/gateway that are not transports. */
const NOT_TRANSPORTS = new Set(['auth', 'discovery', 'monitoring', 'mux', 'session', 'wire']);

describe('transport adapters', () => {
  const folders = fs.readdirSync(gateway, { withFileTypes: true }).filter((e) => e.isDirectory() && !NOT_TRANSPORTS.has(e.name)).map((e) => e.name);

  it('lists every transport folder, and only those, in the adapter table', () => {
    expect(folders.sort()).toEqual(Object.keys(ADAPTERS).sort());
    expect(Object.keys(ADAPTER_TABLE).sort()).toEqual(Object.keys(ADAPTERS).sort());
  });

  it.each(Object.entries(ADAPTERS))('%s implements drain and close, and its folder has the shared files', (name, adapter) => {
    expect(typeof adapter.prototype.drain).toBe('function');
    expect(typeof adapter.prototype.close).toBe('function');
    for (const file of SHARED_FILES) expect([name, file, fs.existsSync(path.join(gateway, name, file))]).toEqual([name, file, true]);
    const source = fs.readFileSync(path.join(gateway, name, 'transport.ts'), 'utf8');
    expect(source).toContain(`readonly transport = '${name}' as const;`);
  });

  it.each(Object.keys(REPLY_SINKS))("%s's reply-sink.ts implements the one ReplySink (or builds the EnvelopeReplies each call's sink is bound over)", (name) => {
    const source = fs.readFileSync(path.join(gateway, name, 'reply-sink.ts'), 'utf8');
    expect(source).toMatch(/(implements|extends) ReplySink\b|\): EnvelopeReplies \{/);
    // The session's per-call sink is the ReplySink of the multiplexed transports.
    expect(typeof EnvelopeCall.prototype.fail).toBe('function');
  });
});
