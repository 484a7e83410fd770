/**
 * One benchmark server in its own process, all on bench.proto, all
 * answering Echo with the same 3-field reply and Stream with `count` of them:
 *
 *   node server.js fw       fw's `server.grpc()` (proto form, async handlers),
 *                           compiled (../support/compiled-fw.js)
 *   node server.js plain    a bare grpc-js server (callback handlers)
 *   node server.js h2       a bare node:http2 responder: reads the request,
 *                           writes the pre-framed reply and the status trailer
 *                           (the floor node:http2 itself allows)
 *   node server.js connect  connect-node (@connectrpc/connect-node) serving
 *                           gRPC over node:http2
 *
 * Prints `PORT <n>` when listening.
 */
'use strict';
const path = require('node:path');
const http2 = require('node:http2');

const PROTO = path.join(__dirname, 'bench.proto');
const reply = { id: '42', name: 'Ada Lovelace', roles: ['admin', 'user'] };

async function startFw() {
  require('../support/compiled-fw').useCompiledFw();
  const { server } = require('fw');
  const proto = require('fw/grpc').loadProtoDefinition(PROTO);
  const app = server.grpc().addService({
    definition: proto.bench.Bench,
    implementation: {
      Echo: async (call) => ({ id: call.request.id, name: reply.name, roles: reply.roles }),
      Stream: async function* (call) {
        for (let i = 0; i < call.request.count; i += 1) yield reply;
      },
    },
  });
  const { port } = await app.listen(0, '127.0.0.1');
  return port;
}

async function startPlain() {
  const grpc = require('@grpc/grpc-js');
  const loader = require('@grpc/proto-loader');
  const definition = loader.loadSync(PROTO, { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true });
  const proto = grpc.loadPackageDefinition(definition);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024, 'grpc.max_send_message_length': 4 * 1024 * 1024 });
  server.addService(proto.bench.Bench.service, {
    Echo: (call, callback) => callback(null, { id: call.request.id, name: reply.name, roles: reply.roles }),
    Stream: (call) => {
      // Same back-pressure contract as fw: wait for drain when write() says so.
      let i = 0;
      const count = call.request.count;
      const pump = () => {
        while (i < count) {
          i += 1;
          if (!call.write(reply)) {
            call.once('drain', pump);
            return;
          }
        }
        call.end();
      };
      pump();
    },
  });
  return new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port)));
  });
}

function frame(bytes) {
  const out = Buffer.alloc(5 + bytes.length);
  out.writeUInt32BE(bytes.length, 1);
  Buffer.from(bytes).copy(out, 5);
  return out;
}

/** The node:http2 floor: no gRPC library, the reply framed once at start. */
async function startH2() {
  const protobuf = require('protobufjs');
  const root = protobuf.loadSync(PROTO);
  const replyFrame = frame(root.lookupType('bench.EchoReply').encode(reply).finish());
  const StreamRequest = root.lookupType('bench.StreamRequest');
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      if (headers[':path'] !== '/bench.Bench/Stream') {
        stream.end(replyFrame);
        return;
      }
      const body = Buffer.concat(chunks);
      let left = StreamRequest.decode(body.subarray(5)).count;
      const pump = () => {
        while (left > 0) {
          left -= 1;
          if (!stream.write(replyFrame)) {
            stream.once('drain', pump);
            return;
          }
        }
        stream.end();
      };
      pump();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

/** connect-node's gRPC server, with @bufbuild/protobuf descriptors built from bench.proto. */
async function startConnect() {
  require('protobufjs/ext/descriptor');
  const protobuf = require('protobufjs');
  const { FileDescriptorSet } = require('protobufjs/ext/descriptor');
  const { fromBinary, createFileRegistry } = require('@bufbuild/protobuf');
  const { FileDescriptorSetSchema } = require('@bufbuild/protobuf/wkt');
  const { connectNodeAdapter } = require('@connectrpc/connect-node');
  const bytes = FileDescriptorSet.encode(protobuf.loadSync(PROTO).toDescriptor('proto3')).finish();
  const service = createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes)).getService('bench.Bench');
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(service, {
        echo: async (request) => ({ id: request.id, name: reply.name, roles: reply.roles }),
        stream: async function* (request) {
          for (let i = 0; i < request.count; i += 1) yield reply;
        },
      }),
  });
  const server = http2.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

const starters = { fw: startFw, plain: startPlain, h2: startH2, connect: startConnect };
const kind = process.argv[2];
const start = starters[kind];
if (start === undefined) {
  console.error(`unknown server kind ${kind} (one of ${Object.keys(starters).join(', ')})`);
  process.exit(2);
}
start().then(
  (port) => process.stdout.write(`PORT ${port}\n`),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
