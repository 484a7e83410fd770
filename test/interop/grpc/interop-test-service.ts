/**
 * grpc's interop TestService (doc/interop-test-descriptions.md, "Server"
 * features) written as an fw handler over the fw-gen output in ./generated:
 * EmptyCall, UnaryCall, StreamingOutputCall, StreamingInputCall,
 * FullDuplexCall, HalfDuplexCall, plus Echo Metadata, Echo Status,
 * CompressedResponse and CompressedRequest. UnimplementedMethod is left
 * unimplemented on purpose, as the interop server must.
 */
import type { RequestContext } from 'fw';
import { GrpcError, GrpcStatus } from 'fw/grpc';
import type { EchoStatus, ResponseParameters, SimpleResponse, StreamingOutputCallRequest, StreamingOutputCallResponse } from './generated/src/proto/grpc/testing/messages';
import type { TestServiceHandlers } from './generated/src/proto/grpc/testing/test.fw';

const ECHO_INITIAL = 'x-grpc-test-echo-initial';
const ECHO_TRAILING = 'x-grpc-test-echo-trailing-bin';

/** Echo Metadata: the initial key back as a response header, the trailing-bin key back as a trailer. */
function echoMetadata(context: RequestContext): void {
  const [initial] = context.call.requestMetadata.get(ECHO_INITIAL);
  if (typeof initial === 'string') context.call.setHeader(ECHO_INITIAL, initial);
  const [trailing] = context.call.requestMetadata.get(ECHO_TRAILING);
  if (trailing instanceof Uint8Array) context.call.setTrailer(ECHO_TRAILING, trailing);
}

/** Echo Status: a requested non-OK status ends the call with exactly that code and message. */
function echoStatus(status: EchoStatus | undefined): void {
  if (status !== undefined && status.code !== 0) throw new GrpcError(status.code as GrpcStatus, status.message);
}

/** CompressedRequest: `expect_compressed` must match how the request actually arrived. */
function checkCompressed(expect: { value: boolean } | undefined, context: RequestContext): void {
  if (expect?.value === true && !context.call.requestCompressed) throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, 'Expected a compressed request');
}

function payload(size: number): { type: 0; body: Uint8Array } {
  if (!Number.isInteger(size) || size < 0 || size > 4 * 1024 * 1024) throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, `response size ${size} out of range`);
  return { type: 0, body: new Uint8Array(size) };
}

async function* respondTo(request: StreamingOutputCallRequest, context: RequestContext): AsyncGenerator<StreamingOutputCallResponse> {
  echoStatus(request.responseStatus);
  for (const parameters of request.responseParameters) {
    await pause(parameters, context);
    if (parameters.compressed !== undefined) context.call.setCompression(parameters.compressed.value ? 'gzip' : 'identity');
    yield { payload: payload(parameters.size) };
  }
}

/** Observe ResponseParameters.interval_us, ending early when the call is cancelled. */
function pause(parameters: ResponseParameters, context: RequestContext): Promise<void> {
  if (parameters.intervalUs <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.ceil(parameters.intervalUs / 1000));
    context.signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

export const interopHandlers: TestServiceHandlers = {
  async emptyCall() {
    return {};
  },

  async unaryCall(request, context): Promise<SimpleResponse> {
    echoMetadata(context);
    checkCompressed(request.expectCompressed, context);
    echoStatus(request.responseStatus);
    if (request.responseCompressed?.value === true) context.call.setCompression('gzip');
    else if (request.responseCompressed?.value === false) context.call.setCompression('identity');
    return { payload: payload(request.responseSize), username: '', oauthScope: '', serverId: '', grpclbRouteType: 0, hostname: '' };
  },

  async *streamingOutputCall(request, context) {
    yield* respondTo(request, context);
  },

  async streamingInputCall(requests, context) {
    let aggregatedPayloadSize = 0;
    for await (const request of requests) {
      checkCompressed(request.expectCompressed, context);
      aggregatedPayloadSize += request.payload?.body.byteLength ?? 0;
    }
    return { aggregatedPayloadSize };
  },

  async *fullDuplexCall(requests, context) {
    echoMetadata(context);
    for await (const request of requests) yield* respondTo(request, context);
  },

  async *halfDuplexCall(requests, context) {
    const buffered: StreamingOutputCallRequest[] = [];
    for await (const request of requests) buffered.push(request);
    for (const request of buffered) yield* respondTo(request, context);
  },

  async unimplementedMethod() {
    throw new GrpcError(GrpcStatus.UNIMPLEMENTED, '/grpc.testing.TestService/UnimplementedMethod is not implemented by the interop server');
  },
};
