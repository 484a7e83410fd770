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

/** How the stub writes the request and response types (default: their import names). */
export interface SignatureTypes {
  request: string;
  response: string;
}

/** Signature of the stub method for `method`. */
export function stubSignature(method: MethodModel, types?: SignatureTypes): StubSignature {
  const req = types?.request ?? method.request.localName;
  const res = types?.response ?? method.response.localName;
  const streamIn = method.streaming === 'client' || method.streaming === 'bidirectional';
  const streamOut = method.streaming === 'server' || method.streaming === 'bidirectional';
  const prefix = streamOut ? 'async *' : 'async ';
  const paramName = streamIn ? 'requests' : 'request';
  const paramType = streamIn ? `AsyncIterable<${req}>` : req;
  // A generator that returns nothing: a unary or client-streaming body that
  // `return`s its reply stops compiling when the RPC becomes a stream.
  const returnType = streamOut ? `AsyncGenerator<${res}, void>` : `Promise<${res}>`;
  const text = `${prefix}${method.localName}(${paramName}: ${paramType}, context: RequestContext): ${returnType}`;
  return { prefix, paramName, paramType, returnType, text };
}

const KIND_WORDS: Record<MethodModel['streaming'], string> = {
  none: 'unary',
  server: 'a server stream',
  client: 'a client stream',
  bidirectional: 'a bidirectional stream',
};

/** `unary`, `a server stream`, …: for messages. */
export function streamingWords(mode: MethodModel['streaming']): string {
  return KIND_WORDS[mode];
}

/** The streaming mode an existing stub method was written for: `*` streams out, an `AsyncIterable` parameter streams in. */
export function writtenStreaming(isGenerator: boolean, paramType: string | undefined): MethodModel['streaming'] {
  const streamIn = paramType !== undefined && /^AsyncIterable\s*</.test(paramType.trim());
  if (isGenerator) return streamIn ? 'bidirectional' : 'server';
  return streamIn ? 'client' : 'none';
}

/** The handler type name of rpc/handler-types.ts for a streaming mode. */
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
