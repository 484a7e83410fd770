/**
 * Caps on the connections one listener holds: all together and per client
 * address. Without them, 3,000 connections that sent nothing but the HTTP/2
 * preface used up the process's file descriptors and locked out every new
 * client; with a per-address cap one client can hold only its share.
 */
import type { Server, Socket } from 'node:net';

/** The caps an fw listener applies (gateway options, and a hosted port's `tcp` options). */
export interface ConnectionCaps {
  /** Connections the port holds at once, every protocol together; more are closed on arrival. Default 10000. */
  maxConnections?: number;
  /** Connections one client address holds at once; more are closed on arrival. Default 256; 0 = no cap. */
  maxConnectionsPerAddress?: number;
}

/** Safe defaults (docs/security.md). */
export const CONNECTION_CAP_DEFAULTS: Required<ConnectionCaps> = {
  maxConnections: 10_000,
  maxConnectionsPerAddress: 256,
};

function count(name: string, value: number, allowZero: boolean): number {
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) throw new RangeError(`${name} must be a${allowZero ? ' non-negative' : ' positive'} integer, got ${String(value)}`);
  return value;
}

/** The caps with defaults filled in; throws a RangeError naming a bad value. */
export function resolveConnectionCaps(caps: ConnectionCaps): Required<ConnectionCaps> {
  return {
    maxConnections: count('maxConnections', caps.maxConnections ?? CONNECTION_CAP_DEFAULTS.maxConnections, false),
    maxConnectionsPerAddress: count('maxConnectionsPerAddress', caps.maxConnectionsPerAddress ?? CONNECTION_CAP_DEFAULTS.maxConnectionsPerAddress, true),
  };
}

/** An IPv4 client seen through a dual-stack socket counts as its IPv4 address. */
function addressOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * Applies the overall cap to `server` (Node closes connections past
 * `maxConnections` itself) and returns the per-address admission check to
 * run first thing on each connection: false means the socket was closed.
 */
export function connectionAdmission(server: Server, caps: Required<ConnectionCaps>): (socket: Socket) => boolean {
  server.maxConnections = caps.maxConnections;
  const perAddress = caps.maxConnectionsPerAddress;
  if (perAddress === 0) return () => true;
  const open = new Map<string, number>();
  return (socket) => {
    const address = addressOf(socket);
    const held = open.get(address) ?? 0;
    if (held >= perAddress) {
      socket.destroy();
      return false;
    }
    open.set(address, held + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
    return true;
  };
}
