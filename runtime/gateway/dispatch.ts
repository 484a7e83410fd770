/**
 * The gateway's name for the call core (rpc/call-core.ts), which every
 * transport and `server.grpc()` run calls through.
 */
export { CallCore as Dispatcher, type CoreCall as GatewayCall } from '../rpc/call-core';
