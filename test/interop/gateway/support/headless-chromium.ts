/**
 * Runs one HTML page in headless Chromium (the Debian package) and reads
 * `window.__result` through the DevTools protocol once the page sets it.
 * The page is served from its own loopback port, so calls to the gateway
 * are cross-origin exactly as in production. Every wait is bounded; the
 * browser's whole process group is killed afterwards. Suites guard
 * themselves with `requirePeers(PEERS.chromium)` (test/support/peers.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import WebSocket from 'ws';
import { waitForExit } from '../../../support/child-exit';
import { CHROMIUM } from '../../../support/peers';

const HOST = '127.0.0.1';

async function evaluate(debuggerUrl: string, expression: string): Promise<unknown> {
  const socket = new WebSocket(debuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  try {
    const reply = await new Promise<{ result?: { result?: { value?: unknown } } }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('CDP timeout')), 5000);
      socket.on('message', (data) => {
        const m = JSON.parse(String(data)) as { id?: number };
        if (m.id === 1) {
          clearTimeout(timer);
          resolve(m as never);
        }
      });
      socket.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression, returnByValue: true } }));
    });
    return reply.result?.result?.value;
  } finally {
    socket.close();
  }
}

/** Bundles a page's entry for Chromium with esbuild (one IIFE script); `alias` maps import specifiers to files. */
export async function bundlePage(entry: string, alias: Record<string, string> = {}): Promise<string> {
  const out = await build({ entryPoints: [entry], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'chrome110', logLevel: 'silent', alias });
  return out.outputFiles[0]?.text ?? '';
}

/** A page server on loopback; `origin` is what the page's requests carry as Origin. `html` may be built after the origin is known. */
export async function servePage(html: string | (() => string)): Promise<{ url: string; origin: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(typeof html === 'string' ? html : html());
  });
  await new Promise<void>((r) => server.listen(0, HOST, () => r()));
  const origin = `http://${HOST}:${(server.address() as { port: number }).port}`;
  return { url: `${origin}/`, origin, close: () => new Promise((r) => server.close(() => r())) };
}

/** Opens `pageUrl` and returns `window.__result` once set (undefined after ~20 s). */
export async function resultOfPage(pageUrl: string): Promise<unknown> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'fw-chromium-'));
  const chrome = spawn(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', `--user-data-dir=${profile}`,
    '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', pageUrl,
  ], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  try {
    const devtools = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err}`)), 30_000);
      chrome.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /DevTools listening on ws:\/\/([^/]+)\//.exec(err);
        if (m !== null && m[1] !== undefined) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    let result: unknown;
    for (let i = 0; i < 80 && result === undefined; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const targets = (await (await fetch(`http://${devtools}/json/list`, { signal: AbortSignal.timeout(5000) })).json()) as { type: string; url: string; webSocketDebuggerUrl: string }[];
      const target = targets.find((t) => t.type === 'page' && t.url === pageUrl);
      if (target === undefined) continue;
      result = await evaluate(target.webSocketDebuggerUrl, 'window.__result');
    }
    return result;
  } finally {
    if (chrome.pid !== undefined && chrome.exitCode === null) {
      const exited = waitForExit(chrome, 5000);
      // Chromium runs helper processes: end the whole group we started.
      try {
        process.kill(-chrome.pid, 'SIGKILL');
      } catch {
        chrome.kill('SIGKILL');
      }
      await exited;
    }
    try {
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      // A helper still flushing its profile: the OS temp dir keeps it.
    }
  }
}
