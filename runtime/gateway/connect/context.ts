/**
 * RequestContext for a Connect or gRPC-Web call (http-exchange.ts). Connect
 * calls report protocol `http` (they are plain HTTP requests), gRPC-Web
 * calls `grpc` (gRPC semantics carried over HTTP/1.1), so metrics, auth
 * extraction and logs group them with their kin. `metadata` names the HTTP
 * method, path, wire protocol (`rpc`) and codec.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TracingInfo } from '../../core/request-context';
import { HttpCallContext } from '../http-exchange';

/** Which wire protocol carried the call. */
export type WebRpcProtocol = 'connect' | 'grpc-web';

/** The context of one Connect/gRPC-Web call; its `abort()` ends the handler's signal at a deadline. */
export function webRpcContext(req: IncomingMessage, res: ServerResponse, wire: WebRpcProtocol, metadata: Record<string, unknown>, tracing: TracingInfo): HttpCallContext {
  return new HttpCallContext(wire === 'connect' ? 'http' : 'grpc', req, req.headers, res, metadata, tracing);
}
