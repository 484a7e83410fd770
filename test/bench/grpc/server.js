/**
 * One benchmark server in its own process: `node server.js fw` (fw's gRPC
 * application, proto form, async handlers) or `node server.js plain` (a bare
 * grpc-js server, callback handlers). Same proto, same proto-loader codecs.
 * Prints `PORT <n>` when listening.
 */
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const ts = require('typescript');

// Load fw from its TypeScript source: transpile each .ts file on require.
require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};

const PROTO = path.join(__dirname, 'bench.proto');
const reply = { id: '1', name: 'Ada Lovelace', roles: ['admin', 'user'] };

async function startFw() {
  const fw = require('../../../runtime/grpc/index.ts');
  const proto = fw.loadProtoDefinition(PROTO);
  const app = fw.createGrpcApplication().addService({
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

const kind = process.argv[2];
(kind === 'fw' ? startFw() : startPlain()).then(
  (port) => process.stdout.write(`PORT ${port}\n`),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
