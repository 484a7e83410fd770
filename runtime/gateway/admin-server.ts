/**
 * The gateway's admin port (`adminPort`): `GET /metrics`, `/ready` and
 * `/health` on a port of their own, so probes and scrapes stay off the
 * service port (and can be kept from the outside by a NetworkPolicy).
 * Anything else is 404. In a worker it binds beside the other workers like
 * the service port does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { healthBody } from '../health/health-routes';
import { streamSharing } from '../workers/port-sharing';

export interface AdminServerDeps {
  metrics(): { text(): Promise<string>; contentType: string } | undefined;
  readiness(): { ready: boolean };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
}

export class AdminServer {
  readonly #server: http.Server;

  constructor(deps: AdminServerDeps) {
    this.#server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      if (path === '/health') return json(res, 200, healthBody());
      if (path === '/ready') {
        const readiness = deps.readiness();
        return json(res, readiness.ready ? 200 : 503, readiness);
      }
      const metrics = path === '/metrics' ? deps.metrics() : undefined;
      if (metrics === undefined) {
        res.writeHead(404).end();
        return;
      }
      metrics.text().then(
        (text) => res.writeHead(200, { 'Content-Type': metrics.contentType }).end(text),
        (error: unknown) => json(res, 500, { error: error instanceof Error ? error.message : String(error) }),
      );
    });
    // Probes are short; a connection left open must not hold up close().
    this.#server.keepAliveTimeout = 1_000;
  }

  /** Binds; resolves with the port. */
  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen({ port, host, ...streamSharing() }, () => {
        this.#server.off('error', reject);
        resolve((this.#server.address() as AddressInfo).port);
      });
    });
  }

  /** Stops listening and closes its connections. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
