/**
 * The one listener behind every fw port that carries gateway transports:
 * the gateway's own port (stream-listener.ts) and an fw app's port hosting
 * them (app-hosting.ts). It binds the TCP port — through the connection mux
 * (sniffing, connection caps, sniff timeout) or, on an app's port with
 * HTTP and WebSocket only, the app's http.Server itself — hands HTTP/1.1
 * connections to an http.Server (arming its header/request timeouts when
 * that server never listens itself), h2c connections to gRPC and 0x01
 * connections to the TCP frame protocol, binds UDP on the same port number,
 * and knows every socket it handed over, so a drain can stop accepting, close
 * idle HTTP connections as they go idle, and cut what is left.
 */
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionCaps } from './connection-caps';
import { createMuxServer, type MuxOptions } from './connection-mux';
import { streamSharing } from '../../workers/port-sharing';

/** UDP on the port number the TCP side got (or its own). */
export interface UdpTwin {
  /** Port to bind; default the TCP port. */
  readonly port?: number;
  /** Binds the datagram socket; resolves with the bound port. */
  bind(port: number, host: string): Promise<number>;
  /** Closes it again when the TCP side must be bound anew. */
  close(): Promise<void>;
}

/** What one `listen` serves. */
export interface PortPlan {
  /** The mux's socket options and caps; undefined lets the http.Server listen itself (HTTP and WebSocket only). */
  readonly mux: (MuxOptions & ConnectionCaps) | undefined;
  /** HTTP/1.1 connections go to the http.Server; false: the mux closes them. */
  readonly http: boolean;
  /** Serves an h2c connection whose first bytes are still unread (never resumed here: grpc-js reads the socket itself). */
  readonly grpc?: (socket: Socket) => void;
  /** Serves a TCP frame-protocol connection (resumed after hand-over). */
  readonly tcp?: (socket: Socket) => void;
  readonly udp?: UdpTwin;
}

/** Where the port is bound. */
export interface BoundPort {
  readonly port: number;
  readonly address: AddressInfo;
  readonly udpPort: number | undefined;
}

/** With an ephemeral port the UDP twin may be taken: this many TCP/UDP pairs are tried. */
const PAIR_ATTEMPTS = 10;
/** How often a drain closes HTTP keep-alive connections that went idle. */
const SWEEP_MS = 25;

/** The one TCP (+ UDP) listener over an http.Server. */
export class PortListener {
  readonly #server: HttpServer;
  /** The net.Server bound to the port: the mux, or the http.Server itself. */
  #listener: NetServer | null = null;
  #udp: UdpTwin | undefined = undefined;
  /** Mux sockets still being classified. */
  readonly #sniffing = new Set<Socket>();
  /** Connections the http.Server holds (an upgrade moves its socket to #streams). */
  readonly #http = new Set<Duplex>();
  /** Sockets owned by WebSocket, gRPC or TCP frames (no HTTP request lifecycle to wait for). */
  readonly #streams = new Set<Duplex>();
  /** Resolves once the bound listener has closed and every connection it accepted is gone. */
  #closed: Promise<void> = Promise.resolve();

  constructor(server: HttpServer) {
    this.#server = server;
    // Every HTTP connection arrives here, from the mux's hand-over or the server's own listen.
    server.on('connection', (socket: Duplex) => {
      this.#http.add(socket);
      socket.once('close', () => this.#http.delete(socket));
    });
  }

  /** True between a successful `listen` and the start of a drain or close. */
  get listening(): boolean {
    return this.#listener !== null;
  }

  /** The bound TCP address, or null when not listening. */
  address(): AddressInfo | null {
    const address = this.#listener?.address();
    return address !== null && address !== undefined && typeof address === 'object' ? address : null;
  }

  /** A socket taken over by a stream protocol (a WebSocket upgrade): no longer an HTTP connection to wait for. */
  adopt(socket: Duplex): void {
    this.#http.delete(socket);
    this.#streams.add(socket);
    socket.once('close', () => this.#streams.delete(socket));
  }

  /** Binds TCP (and UDP on the same port number); resolves once everything listens. */
  async listen(port: number, host: string | undefined, plan: PortPlan): Promise<BoundPort> {
    if (this.#listener !== null) throw new Error('listen(): already listening; close() first');
    for (let attempt = 1; ; attempt++) {
      const address = await this.#listenStream(port, host, plan);
      const udp = plan.udp;
      if (udp === undefined) return { port: address.port, address, udpPort: undefined };
      try {
        const udpPort = await udp.bind(udp.port ?? address.port, address.address);
        this.#udp = udp;
        return { port: address.port, address, udpPort };
      } catch (error) {
        this.cut(true);
        await this.#stopAccepting();
        const retry = port === 0 && udp.port === undefined && attempt < PAIR_ATTEMPTS && (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
        if (!retry) throw error;
      }
    }
  }

  #listenStream(port: number, host: string | undefined, plan: PortPlan): Promise<AddressInfo> {
    const listener = plan.mux === undefined ? this.#server : this.#createMux(plan, plan.mux);
    return new Promise<AddressInfo>((resolve, reject) => {
      const onError = (error: Error): void => {
        listener.off('listening', onListening);
        // Stop the timeout checks the mux path armed on the http.Server.
        if (listener !== this.#server) this.#server.close();
        reject(error);
      };
      const onListening = (): void => {
        listener.off('error', onError);
        this.#listener = listener;
        this.#closed = new Promise<void>((done) => listener.once('close', () => done()));
        resolve(listener.address() as AddressInfo);
      };
      listener.once('error', onError);
      listener.once('listening', onListening);
      // A worker on Linux binds the port itself beside the others (reusePort); elsewhere node:cluster shares it.
      listener.listen({ port, host, ...streamSharing() });
    });
  }

  #createMux(plan: PortPlan, options: MuxOptions & ConnectionCaps): NetServer {
    const server = this.#server;
    const { grpc, tcp } = plan;
    const mux = createMuxServer(
      {
        http: plan.http ? (socket) => {
          this.#sniffing.delete(socket);
          server.emit('connection', socket);
          socket.resume();
        } : undefined,
        grpc: grpc === undefined ? undefined : (socket) => {
          this.#sniffing.delete(socket);
          this.adopt(socket);
          // grpc-js reads the socket itself; resuming here breaks every call (DESIGN "Gateway").
          grpc(socket);
        },
        tcp: tcp === undefined ? undefined : (socket) => {
          this.#sniffing.delete(socket);
          this.adopt(socket);
          tcp(socket);
          socket.resume();
        },
      },
      options,
    );
    mux.on('connection', (socket: Socket) => {
      this.#sniffing.add(socket);
      socket.once('close', () => this.#sniffing.delete(socket));
    });
    // The http.Server never listens itself: 'listening' arms its headersTimeout/requestTimeout checks.
    server.emit('listening');
    return mux;
  }

  /** Stops accepting; resolves once every connection the listener accepted is gone. */
  #stopAccepting(): Promise<void> {
    const listener = this.#listener;
    this.#listener = null;
    if (listener === null) return this.#closed;
    for (const socket of this.#sniffing) socket.destroy();
    listener.close();
    // A never-listening http.Server: close() only stops its timeout checks and idle connections.
    if (listener !== this.#server) this.#server.close();
    else this.#server.closeIdleConnections();
    return this.#closed;
  }

  /**
   * Graceful stop of the port: no new connections; idle HTTP keep-alive
   * connections close now and busy ones as soon as their response is out.
   * Resolves when every HTTP connection (upgraded ones aside) has closed.
   */
  drainHttp(): Promise<void> {
    void this.#stopAccepting();
    const server = this.#server;
    server.closeIdleConnections();
    if ([...this.#http].every((s) => s.destroyed)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const sweep = setInterval(() => {
        server.closeIdleConnections();
        if ([...this.#http].every((s) => s.destroyed)) {
          clearInterval(sweep);
          resolve();
        }
      }, SWEEP_MS);
    });
  }

  /** Asks every stream connection to end (a host without a draining gateway). */
  endStreams(): void {
    for (const socket of this.#streams) socket.end();
  }

  /** Cuts every HTTP connection now, and the stream connections too when `streams` (else their transports close them). */
  cut(streams: boolean): void {
    this.#server.closeAllConnections();
    for (const socket of this.#http) socket.destroy();
    for (const socket of this.#sniffing) socket.destroy();
    if (streams) for (const socket of this.#streams) socket.destroy();
  }

  /** Resolves once the listener has stopped and every connection it accepted is gone. */
  closed(): Promise<void> {
    return this.#stopAccepting();
  }

  /** The UDP twin bound by the last `listen`, handed back (once) for closing. */
  takeUdp(): UdpTwin | undefined {
    const udp = this.#udp;
    this.#udp = undefined;
    return udp;
  }
}
