/**
 * One benchmark server in its own process. `node server.js <kind>`:
 *   gateway  — fw's ProtocolGateway, inline Echo service, all five protocols on one port
 *   http     — bare node:http echo (reads the body, answers it as JSON)
 *   ws       — bare ws echo server
 *   udp      — bare dgram echo
 *   tcp      — bare net echo
 *   grpc     — plain grpc-js server, JSON codec, /Echo/echo
 *   http-json, udp-json, ws-json — the same floors, but decoding the JSON message and
 *              encoding the reply as the gateway's wire format does (reference rows)
 *   user-rules — gateway serving generated/user.fw.ts's UserService.createUser (buf.validate rules)
 *   user-plain — the same call from a copy of its messages without rules (proto/plain_user.proto)
 *   user-echo  — gateway serving generated/user_echo.fw.ts's UserEcho.Echo (proto/user_echo.proto, no rules):
 *              the User it is sent, back; with Timestamps, so the request is read and the reply written
 *              by the typed proto3 JSON code, not ts-proto's own JSON (POST /users/echo)
 *   fastify-ajv — Fastify's POST /users with the same rules as an ajv route schema (fw-gen's JSON Schema of CreateUserRequest)
 * Prints `PORT <n>` when listening.
 */
'use strict';
// fw compiled, as a team deploys it (../support/compiled-fw.js; its TypeScript source when run alone):
// from source, modules a call first needs are compiled by TypeScript inside the measured window.
const path = require('node:path');
const { useCompiledFw, benchModule } = require('../support/compiled-fw');
useCompiledFw();

const HOST = '127.0.0.1';

/** A gateway serving one generated UserService whose createUser answers at once (no store: only decoding and validation differ). */
async function userGateway(descriptorModule, descriptorName, handlers = { createUser: async (request) => ({ id: '1', name: request.name, email: request.email, phone: '', roles: [] }) }) {
  const { ProtocolGateway } = require('fw');
  const descriptor = require(benchModule(path.join(__dirname, descriptorModule)))[descriptorName];
  // BENCH_VALIDATION=protovalidate: the interpreter instead of the compiled validators (for before/after figures).
  const gateway = new ProtocolGateway(process.env.BENCH_VALIDATION === 'protovalidate' ? { validation: 'protovalidate' } : {});
  gateway.addService(descriptor, handlers);
  const { port } = await gateway.listen(0, HOST);
  return port;
}
const json = (v) => Buffer.from(JSON.stringify(v));
const parse = (b) => JSON.parse(b.toString('utf8'));

const servers = {
  async gateway() {
    const { ProtocolGateway } = require('fw');
    // One load generator is one source address: UDP's per-address rate limit (docs/security.md) would cap it at 100 calls/s.
    const gateway = new ProtocolGateway({ udp: { rateLimit: false } });
    gateway.addService('Echo', { echo: async (request) => request });
    const { port } = await gateway.listen(0, HOST);
    return port;
  },
  'user-rules': () => userGateway('../../../generated/user.fw.ts', 'UserServiceDescriptor'),
  'user-plain': () => userGateway('./generated/plain_user.fw.ts', 'UserServiceDescriptor'),
  'user-echo': () => userGateway('./generated/user_echo.fw.ts', 'UserEchoDescriptor', { echo: async (request) => request }),
  async 'fastify-ajv'() {
    const { UserServiceValidation } = require(benchModule(path.join(__dirname, '../../../generated/user.fw.ts')));
    const app = require('fastify')({ logger: false });
    app.post('/users', { schema: { body: UserServiceValidation.createUser.jsonSchema } }, async (request) => ({ id: '1', name: request.body.name, email: request.body.email, phone: '', roles: [] }));
    await app.listen({ port: 0, host: HOST });
    return app.server.address().port;
  },
  async http() {
    const server = require('node:http').createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      });
    });
    await new Promise((r) => server.listen(0, HOST, r));
    return server.address().port;
  },
  async 'http-json'() {
    const server = require('node:http').createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        let data;
        try {
          data = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.writeHead(400).end();
          return;
        }
        const body = JSON.stringify({ data });
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    await new Promise((r) => server.listen(0, HOST, r));
    return server.address().port;
  },
  async 'udp-json'() {
    // Frame: version, type, 4-byte length, JSON {id, service, method, data}; the reply carries {id, method, data}.
    const socket = require('node:dgram').createSocket('udp4');
    socket.on('message', (msg, rinfo) => {
      if (msg.length < 6 || msg.length !== 6 + msg.readUInt32BE(2)) return;
      let call;
      try {
        call = JSON.parse(msg.toString('utf8', 6));
      } catch {
        return;
      }
      const body = Buffer.from(JSON.stringify({ id: call.id, method: call.method, data: call.data }));
      const head = Buffer.allocUnsafe(6);
      head[0] = 1;
      head[1] = 2;
      head.writeUInt32BE(body.length, 2);
      socket.send([head, body], rinfo.port, rinfo.address);
    });
    await new Promise((r) => socket.bind(0, HOST, r));
    return socket.address().port;
  },
  async ws() {
    const { WebSocketServer } = require('ws');
    const wss = new WebSocketServer({ host: HOST, port: 0, perMessageDeflate: false });
    wss.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
    await new Promise((r) => wss.once('listening', r));
    return wss.address().port;
  },
  async 'ws-json'() {
    // Each message parsed and its reply {id, data} stringified, as any JSON service over WebSocket does.
    const { WebSocketServer } = require('ws');
    const wss = new WebSocketServer({ host: HOST, port: 0, perMessageDeflate: false });
    wss.on('connection', (socket) =>
      socket.on('message', (data) => {
        let call;
        try {
          call = JSON.parse(data.toString('utf8'));
        } catch {
          return;
        }
        socket.send(JSON.stringify({ id: call.id, data: call.data }));
      }),
    );
    await new Promise((r) => wss.once('listening', r));
    return wss.address().port;
  },
  async udp() {
    const socket = require('node:dgram').createSocket('udp4');
    socket.on('message', (msg, rinfo) => socket.send(msg, rinfo.port, rinfo.address));
    await new Promise((r) => socket.bind(0, HOST, r));
    return socket.address().port;
  },
  async tcp() {
    const server = require('node:net').createServer({ noDelay: true }, (socket) => {
      socket.on('data', (chunk) => socket.write(chunk));
      socket.on('error', () => socket.destroy());
    });
    await new Promise((r) => server.listen(0, HOST, r));
    return server.address().port;
  },
  async grpc() {
    const grpc = require('@grpc/grpc-js');
    const server = new grpc.Server();
    server.addService(
      { echo: { path: '/Echo/echo', requestStream: false, responseStream: false, requestSerialize: json, requestDeserialize: parse, responseSerialize: json, responseDeserialize: parse } },
      { echo: (call, callback) => callback(null, call.request) },
    );
    return new Promise((resolve, reject) => server.bindAsync(`${HOST}:0`, grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
  },
};

const kind = process.argv[2];
if (servers[kind] === undefined) {
  console.error(`unknown server kind ${kind}; use ${Object.keys(servers).join(', ')}`);
  process.exit(2);
}
servers[kind]().then(
  (port) => process.stdout.write(`PORT ${port}\n`),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
