'use strict';
// Child process: builds one framework's server for one scenario, listens on
// 127.0.0.1:0 and reports the port to the parent (run.js). Runs compiled dist/.
const http = require('node:http');

const [framework, scenarioFile] = process.argv.slice(2);
const scenario = require(scenarioFile);

async function start() {
  const setup = scenario[framework];
  if (typeof setup !== 'function') throw new Error(`scenario ${scenario.name} has no ${framework} setup`);
  switch (framework) {
    case 'fw': {
      const fw = require('fw');
      const app = fw.server.http().withOptions({ hostname: '127.0.0.1' });
      await setup(app, fw);
      await app.listen(0, '127.0.0.1');
      return app.port;
    }
    case 'fastify': {
      const app = require('fastify')({ logger: false });
      await setup(app);
      await app.listen({ port: 0, host: '127.0.0.1' });
      return app.server.address().port;
    }
    case 'express': {
      const express = require('express');
      const app = express();
      app.disable('x-powered-by');
      app.disable('etag');
      await setup(app, express);
      return listenNode(http.createServer(app));
    }
    case 'node': {
      const listener = await setup();
      return listenNode(http.createServer(listener));
    }
    default:
      throw new Error(`unknown framework ${framework}`);
  }
}

function listenNode(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}

// The parent asks for CPU time around each measured run: CPU µs per request is
// steadier than req/s on a shared machine.
process.on('message', (message) => {
  if (message === 'cpu') process.send({ cpu: process.cpuUsage() });
});

start().then(
  (port) => process.send({ port }),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
