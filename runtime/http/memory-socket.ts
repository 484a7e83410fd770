/**
 * A pair of in-memory sockets: bytes written to one are read from the other.
 * `createFetchHandler()` hands one end to the application's own `http.Server`
 * (`emit('connection')`) and the other to an `http.request`, so an in-process
 * request goes through exactly the parser, FwRequest/FwResponse and pipeline
 * that a network request does.
 */
import { Duplex } from 'node:stream';

/** Peer addresses the server side reports (`req.ip`, `req.protocol`). */
export interface MemorySocketInfo {
  remoteAddress: string;
  remotePort: number;
  encrypted: boolean;
}

/** One end of an in-memory connection, with the `net.Socket` methods node:http calls. */
export class MemorySocket extends Duplex {
  peer: MemorySocket | null = null;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly remoteFamily: string;
  readonly localAddress: string;
  readonly localPort: number;
  readonly encrypted: boolean;
  readonly #isServerSide: boolean;
  #ended = false;

  constructor(info: MemorySocketInfo, isServerSide: boolean) {
    super({ allowHalfOpen: true });
    this.remoteAddress = info.remoteAddress;
    this.remotePort = info.remotePort;
    this.remoteFamily = info.remoteAddress.includes(':') ? 'IPv6' : 'IPv4';
    this.localAddress = info.remoteAddress;
    this.localPort = 0;
    this.encrypted = info.encrypted;
    this.#isServerSide = isServerSide;
  }

  override _read(): void {
    // Data arrives when the peer writes.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const peer = this.peer;
    if (peer === null || peer.destroyed) {
      callback(Object.assign(new Error('write after the peer closed'), { code: 'EPIPE' }));
      return;
    }
    peer.push(chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#ended = true;
    this.peer?.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const peer = this.peer;
    // After a clean end the peer still has to read what we sent: leave it alone.
    if (peer !== null && !peer.destroyed && !this.#ended) {
      if (error !== null) peer.destroy(error);
      else if (this.#isServerSide) peer.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      else peer.destroy();
    }
    callback(error);
  }

  setTimeout(_ms: number, _callback?: () => void): this {
    return this;
  }

  setNoDelay(_noDelay?: boolean): this {
    return this;
  }

  setKeepAlive(_enable?: boolean, _delay?: number): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  address(): { address: string; family: string; port: number } {
    return { address: this.localAddress, family: this.remoteFamily, port: this.localPort };
  }
}

/** A connected pair: `[serverSide, clientSide]`. */
export function memorySocketPair(info: MemorySocketInfo): [MemorySocket, MemorySocket] {
  const server = new MemorySocket(info, true);
  const client = new MemorySocket({ remoteAddress: info.remoteAddress, remotePort: 0, encrypted: info.encrypted }, false);
  server.peer = client;
  client.peer = server;
  return [server, client];
}
