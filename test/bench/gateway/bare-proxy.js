/**
 * The floor for any gRPC gateway built on node:http2: a bare proxy that takes
 * each call on a server stream and sends it on a client stream to the
 * instance (message bytes and status passed as they are, no routing, no
 * metadata, no deadlines, no errors handled beyond not crashing). The
 * forwarding bench (./forwarding.js) runs it as a reference row: the
 * gateway's CPU per forwarded call against this shows what fw adds, and this
 * against the instance's shows what two node:http2 legs cost by themselves.
 *
 *   node bare-proxy.js <instance port>   (sends { port } over IPC, or prints PORT <n>)
 */
'use strict';
const http2 = require('node:http2');

const UPSTREAM_CONNECTIONS = 4; // fw's server takes 100 streams per connection; the bench has 256 calls in flight

function start(instancePort) {
  const upstream = Array.from({ length: UPSTREAM_CONNECTIONS }, () => {
    const session = http2.connect(`http://127.0.0.1:${instancePort}`);
    session.on('error', () => undefined);
    return session;
  });
  let next = 0;
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    const body = [];
    stream.on('data', (chunk) => body.push(chunk));
    stream.on('end', () => {
      const call = upstream[next++ % UPSTREAM_CONNECTIONS].request({ ':method': 'POST', ':path': headers[':path'], 'content-type': 'application/grpc', te: 'trailers' });
      const reply = [];
      call.on('error', () => undefined);
      call.on('data', (chunk) => reply.push(chunk));
      call.on('trailers', (trailers) => {
        if (stream.destroyed) return;
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(trailers['grpc-status'] ?? '2') }));
        stream.end(Buffer.concat(reply));
      });
      call.end(Buffer.concat(body));
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    if (process.send) process.send({ port });
    else process.stdout.write(`PORT ${port}\n`);
  });
}

start(Number(process.argv[2]));
