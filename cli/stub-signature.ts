/**
 * The handler method signature of one RPC as it appears in a stub class,
 * shared by the stub template (new files) and the merge (existing files), so
 * both produce byte-identical text.
 */
import type { MethodModel } from './model';

/** Parts of a stub method's signature. */
export interface StubSignature {
  /** `async *` for server/bidi streams, `async ` otherwise. */
  prefix: string;
  paramName: 'request' | 'requests';
  paramType: string;
  returnType: string;
  /** The whole signature line without indentation and without `{`. */
  text: string;
}

/** Signature of the stub method for `method`. */
export function stubSignature(method: MethodModel): StubSignature {
  const req = method.request.localName;
  const res = method.response.localName;
  const streamIn = method.streaming === 'client' || method.streaming === 'bidirectional';
  const streamOut = method.streaming === 'server' || method.streaming === 'bidirectional';
  const prefix = streamOut ? 'async *' : 'async ';
  const paramName = streamIn ? 'requests' : 'request';
  const paramType = streamIn ? `AsyncIterable<${req}>` : req;
  const returnType = streamOut ? `AsyncIterable<${res}>` : `Promise<${res}>`;
  const text = `${prefix}${method.localName}(${paramName}: ${paramType}, context: RequestContext): ${returnType}`;
  return { prefix, paramName, paramType, returnType, text };
}

/** The handler type name of core/handler-types.ts for a streaming mode. */
export function handlerTypeName(method: MethodModel): string {
  switch (method.streaming) {
    case 'server':
      return 'ServerStreamingHandler';
    case 'client':
      return 'ClientStreamingHandler';
    case 'bidirectional':
      return 'BidiStreamingHandler';
    default:
      return 'UnaryHandler';
  }
}
