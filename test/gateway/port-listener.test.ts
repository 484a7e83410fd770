/**
 * The one listener (runtime/gateway/mux/port-listener.ts) on both of its
 * ports: the gateway's own and an fw app's hosting the gateway. A
 * connection that has not yet said which protocol it speaks holds neither
 * close(): it is closed with the port (it used to hold the gateway's close()
 * until its sniff timeout), and the port then accepts nothing.
 */
import net from 'node:net';
import { ProtocolGateway, server } from 'fw';
import { HOST, withTimeout } from './support/clients';

/** A connection that sent the first byte of the HTTP/2 preface (or of POST, PUT, PATCH) and nothing more. */
function halfSniffed(port: number): Promise<{ closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, HOST, () => {
      socket.write('P');
      // Let the mux take it into classification before close() starts.
      setImmediate(() => resolve({ closed: new Promise<void>((done) => socket.once('close', () => done())) }));
    });
    socket.on('error', () => socket.destroy());
    socket.once('error', reject);
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, HOST);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('the one listener', () => {
  it("the gateway's own port: close() ends a connection still being sniffed", async () => {
    // A sniff timeout far past the test's own timeout: only the listener's close can end the connection in time.
    const gateway = new ProtocolGateway({ tcp: { sniffTimeout: 600_000 }, enableUDP: false });
    gateway.addService('Echo', { echo: async (req: unknown) => req });
    const { port } = await gateway.listen(0, HOST);
    const client = await halfSniffed(port as number);
    await withTimeout(gateway.close({ timeoutMs: 1000 }), 4000, 'gateway.close()');
    await withTimeout(client.closed, 1000, 'the sniffed connection closing');
    expect(await refused(port as number)).toBe(true);
  });

  it("an fw app's port hosting the gateway: close() ends a connection still being sniffed", async () => {
    const gateway = new ProtocolGateway({ enableUDP: false });
    gateway.addService('Echo', { echo: async (req: unknown) => req });
    // The app's port sniffs for at most 10 s, more than the waits below allow.
    const app = server.http().withOptions({ grpc: gateway.getGRPCConfig(), tcp: gateway.getTCPConfig() });
    await app.listen(0, HOST);
    const port = app.port;
    const client = await halfSniffed(port);
    await withTimeout(app.close({ graceMs: 1000 }), 4000, 'app.close()');
    await withTimeout(client.closed, 1000, 'the sniffed connection closing');
    expect(await refused(port)).toBe(true);
  });
});
