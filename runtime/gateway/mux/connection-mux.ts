/**
 * One TCP port for every stream protocol: each new connection is classified
 * by its first bytes — `PRI * HTTP/2.0` → gRPC (h2c), an HTTP/1.1 method →
 * HTTP and WebSocket upgrades, byte 0x01 → the TCP frame protocol — and
 * handed to that transport. The sniff is bounded in bytes (16) and time;
 * anything unrecognised is closed. After hand-over there is no per-request
 * cost.
 */
import net, { type Socket } from 'node:net';
import { connectionAdmission, resolveConnectionCaps, type ConnectionCaps } from './connection-caps';

/** Where a classified connection goes. */
export type MuxTarget = 'grpc' | 'http' | 'tcp';

/** Receivers of classified connections; a missing one means that protocol is off (connection closed). */
export interface MuxHandlers {
  http?: (socket: Socket) => void;
  grpc?: (socket: Socket) => void;
  tcp?: (socket: Socket) => void;
}

/** Socket options of the shared listener and the sniff deadline. */
export interface MuxOptions {
  noDelay?: boolean;
  keepAlive?: boolean;
  /** Close a connection that has not sent enough bytes to classify within this many ms; default 10000. */
  sniffTimeout?: number;
}

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0');
const METHODS = ['GET ', 'POST ', 'PUT ', 'PATCH ', 'DELETE ', 'HEAD ', 'OPTIONS ', 'CONNECT ', 'TRACE '].map((m) => Buffer.from(m));
const MAX_SNIFF = H2_PREFACE.length;

/**
 * Classifies a connection's first bytes. Returns undefined while more bytes
 * are needed, or null when the bytes match no protocol.
 */
export function classify(bytes: Buffer): MuxTarget | null | undefined {
  if (bytes.length === 0) return undefined;
  if (bytes[0] === 0x01) return 'tcp';
  let pending = false;
  const candidates: [Buffer, MuxTarget][] = [[H2_PREFACE, 'grpc'], ...METHODS.map((m): [Buffer, MuxTarget] => [m, 'http'])];
  for (const [prefix, target] of candidates) {
    const n = Math.min(prefix.length, bytes.length);
    if (bytes.compare(prefix, 0, n, 0, n) !== 0) continue;
    if (bytes.length >= prefix.length) return target;
    pending = true;
  }
  return pending ? undefined : null;
}

/** A net.Server that routes each connection to `handlers` by its first bytes. */
export function createMuxServer(handlers: MuxHandlers, options: MuxOptions & ConnectionCaps = {}): net.Server {
  const sniffTimeout = options.sniffTimeout ?? 10_000;
  const caps = resolveConnectionCaps(options);
  let admit: (socket: Socket) => boolean;
  const server = net.createServer({ noDelay: options.noDelay !== false, keepAlive: options.keepAlive !== false, pauseOnConnect: false }, (socket) => {
    if (!admit(socket)) return;
    let seen: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), sniffTimeout);
    const onError = (): void => {
      socket.destroy();
    };
    socket.on('error', onError);
    const onData = (chunk: Buffer): void => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      const target = classify(seen.subarray(0, MAX_SNIFF));
      if (target === undefined && seen.length < MAX_SNIFF) return;
      clearTimeout(timer);
      socket.off('data', onData);
      const handler = target === undefined || target === null ? undefined : handlers[target];
      if (handler === undefined) {
        socket.destroy();
        return;
      }
      socket.pause();
      socket.unshift(seen);
      socket.off('error', onError);
      handler(socket);
    };
    socket.on('data', onData);
    socket.once('close', () => clearTimeout(timer));
  });
  admit = connectionAdmission(server, caps);
  return server;
}
