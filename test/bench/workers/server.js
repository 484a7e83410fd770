/**
 * The bench:workers service: a gateway (HTTP/JSON and gRPC) whose one method
 * spins the CPU for about 1 ms per call, served by BENCH_WORKERS worker
 * processes. The cluster primary reports the port over IPC.
 */
'use strict';
require('../../support/require-ts');
const cluster = require('node:cluster');
const { createProtocolGateway } = require('fw');

const WORK_MS = Number(process.env.BENCH_WORK_MS || 1);

const gateway = createProtocolGateway({ protocols: ['http', 'grpc'], host: '127.0.0.1', port: 0, workers: Number(process.env.BENCH_WORKERS || 1), shutdownTimeout: 1000 });
gateway.addService('Work', {
  burn: async () => {
    // CPU-bound on purpose: what more cores help with.
    const until = performance.now() + WORK_MS;
    let spins = 0;
    while (performance.now() < until) spins++;
    return { pid: process.pid, spins };
  },
});
gateway.listen().then((address) => {
  if (cluster.isPrimary) process.send?.({ port: address.port });
});
