"""grpc's interop TestService server features (doc/interop-test-descriptions.md,
"Server"), written for this repository on Python's grpcio, so fw's generated
client can run the interop cases against a server nobody here wrote the
transport of. grpcio's Python server cannot see whether a request arrived
compressed, so CompressedRequest is not implemented (as in grpc's own Python
interop server). Usage: interop_server.py <stubs_dir>; prints the bound port
on its first line, then serves until stdin closes."""
import sys
import time
from concurrent import futures

sys.path.insert(0, sys.argv[1])

import grpc  # noqa: E402
from src.proto.grpc.testing import empty_pb2, messages_pb2, test_pb2_grpc  # noqa: E402

ECHO_INITIAL = "x-grpc-test-echo-initial"
ECHO_TRAILING = "x-grpc-test-echo-trailing-bin"


def echo_metadata(context):
    metadata = dict(context.invocation_metadata())
    if ECHO_INITIAL in metadata:
        context.send_initial_metadata(((ECHO_INITIAL, metadata[ECHO_INITIAL]),))
    if ECHO_TRAILING in metadata:
        context.set_trailing_metadata(((ECHO_TRAILING, metadata[ECHO_TRAILING]),))


def echo_status(status, context):
    if status.code != 0:
        context.abort(grpc.StatusCode(next(c.value for c in grpc.StatusCode if c.value[0] == status.code)), status.message)


def payload(size):
    return messages_pb2.Payload(body=b"\x00" * size)


def respond(request, context):
    echo_status(request.response_status, context)
    for parameters in request.response_parameters:
        if parameters.interval_us > 0:
            time.sleep(parameters.interval_us / 1e6)
        if parameters.HasField("compressed") and parameters.compressed.value:
            context.set_compression(grpc.Compression.Gzip)
        yield messages_pb2.StreamingOutputCallResponse(payload=payload(parameters.size))


class TestService(test_pb2_grpc.TestServiceServicer):
    def EmptyCall(self, request, context):
        return empty_pb2.Empty()

    def UnaryCall(self, request, context):
        echo_metadata(context)
        echo_status(request.response_status, context)
        if request.response_compressed.value:
            context.set_compression(grpc.Compression.Gzip)
        return messages_pb2.SimpleResponse(payload=payload(request.response_size))

    def StreamingOutputCall(self, request, context):
        yield from respond(request, context)

    def StreamingInputCall(self, request_iterator, context):
        total = sum(len(r.payload.body) for r in request_iterator)
        return messages_pb2.StreamingInputCallResponse(aggregated_payload_size=total)

    def FullDuplexCall(self, request_iterator, context):
        echo_metadata(context)
        for request in request_iterator:
            yield from respond(request, context)

    def HalfDuplexCall(self, request_iterator, context):
        buffered = list(request_iterator)
        for request in buffered:
            yield from respond(request, context)


def main():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    test_pb2_grpc.add_TestServiceServicer_to_server(TestService(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(port, flush=True)
    sys.stdin.read()
    server.stop(0).wait()


if __name__ == "__main__":
    main()
