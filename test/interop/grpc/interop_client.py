"""grpc's interop client cases (doc/interop-test-descriptions.md, "Client"),
written for this repository against Python's grpcio: each case runs against the
server at <host:port> and reports pass or the reason it failed.
Usage: interop_client.py <stubs_dir> <host:port>. Prints one JSON object:
{case_name: {"ok": bool, "detail": str}}."""
import json
import queue
import sys
import traceback

sys.path.insert(0, sys.argv[1])

import grpc  # noqa: E402
from src.proto.grpc.testing import empty_pb2, messages_pb2, test_pb2_grpc  # noqa: E402

TIMEOUT = 10
ECHO_INITIAL = ("x-grpc-test-echo-initial", "test_initial_metadata_value")
ECHO_TRAILING = ("x-grpc-test-echo-trailing-bin", b"\xab\xab\xab")
SPECIAL_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \U0001f608\t\n"


class CaseFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CaseFailed(message)


def zeros(n):
    return messages_pb2.Payload(body=b"\x00" * n)


def expect_code(fn, code):
    try:
        fn()
    except grpc.RpcError as error:
        check(error.code() == code, f"expected {code.name}, got {error.code().name}: {error.details()}")
        return error
    raise CaseFailed(f"expected {code.name}, the call succeeded")


class Requests:
    """A request iterator the case feeds one message at a time (ping-pong)."""

    def __init__(self):
        self._queue = queue.Queue()

    def send(self, message):
        self._queue.put(message)

    def close(self):
        self._queue.put(None)

    def __iter__(self):
        return self

    def __next__(self):
        item = self._queue.get(timeout=TIMEOUT)
        if item is None:
            raise StopIteration
        return item


def empty_unary(stub, channel):
    response = stub.EmptyCall(empty_pb2.Empty(), timeout=TIMEOUT)
    check(isinstance(response, empty_pb2.Empty), "response is not an Empty")


def large_unary(stub, channel):
    response = stub.UnaryCall(messages_pb2.SimpleRequest(response_size=314159, payload=zeros(271828)), timeout=TIMEOUT)
    check(response.payload.body == b"\x00" * 314159, f"payload is {len(response.payload.body)} bytes")


def client_compressed_unary(stub, channel):
    def request(expect):
        return messages_pb2.SimpleRequest(expect_compressed=messages_pb2.BoolValue(value=expect), response_size=314159, payload=zeros(271828))

    expect_code(lambda: stub.UnaryCall(request(True), timeout=TIMEOUT), grpc.StatusCode.INVALID_ARGUMENT)
    response = stub.UnaryCall(request(True), timeout=TIMEOUT, compression=grpc.Compression.Gzip)
    check(len(response.payload.body) == 314159, "compressed call: wrong payload size")
    response = stub.UnaryCall(request(False), timeout=TIMEOUT)
    check(len(response.payload.body) == 314159, "uncompressed call: wrong payload size")


def server_compressed_unary(stub, channel):
    # grpcio does not expose the per-message compressed flag: the call must succeed with the right payload.
    for compressed in (True, False):
        response = stub.UnaryCall(
            messages_pb2.SimpleRequest(response_compressed=messages_pb2.BoolValue(value=compressed), response_size=314159, payload=zeros(271828)),
            timeout=TIMEOUT,
        )
        check(len(response.payload.body) == 314159, f"response_compressed={compressed}: wrong payload size")


def client_streaming(stub, channel):
    sizes = [27182, 8, 1828, 45904]
    response = stub.StreamingInputCall(iter([messages_pb2.StreamingInputCallRequest(payload=zeros(n)) for n in sizes]), timeout=TIMEOUT)
    check(response.aggregated_payload_size == 74922, f"aggregated {response.aggregated_payload_size}")


def client_compressed_streaming(stub, channel):
    probe = messages_pb2.StreamingInputCallRequest(expect_compressed=messages_pb2.BoolValue(value=True), payload=zeros(27182))
    expect_code(lambda: stub.StreamingInputCall(iter([probe]), timeout=TIMEOUT), grpc.StatusCode.INVALID_ARGUMENT)
    requests = [probe, messages_pb2.StreamingInputCallRequest(expect_compressed=messages_pb2.BoolValue(value=False), payload=zeros(45904))]
    response = stub.StreamingInputCall(iter(requests), timeout=TIMEOUT, compression=grpc.Compression.Gzip)
    check(response.aggregated_payload_size == 73086, f"aggregated {response.aggregated_payload_size}")


def server_streaming(stub, channel):
    sizes = [31415, 9, 2653, 58979]
    request = messages_pb2.StreamingOutputCallRequest(response_parameters=[messages_pb2.ResponseParameters(size=n) for n in sizes])
    got = [len(r.payload.body) for r in stub.StreamingOutputCall(request, timeout=TIMEOUT)]
    check(got == sizes, f"sizes {got}")


def server_compressed_streaming(stub, channel):
    request = messages_pb2.StreamingOutputCallRequest(
        response_parameters=[
            messages_pb2.ResponseParameters(size=31415, compressed=messages_pb2.BoolValue(value=True)),
            messages_pb2.ResponseParameters(size=92653, compressed=messages_pb2.BoolValue(value=False)),
        ]
    )
    got = [len(r.payload.body) for r in stub.StreamingOutputCall(request, timeout=TIMEOUT)]
    check(got == [31415, 92653], f"sizes {got}")


def ping_pong(stub, channel):
    pairs = [(31415, 27182), (9, 8), (2653, 1828), (58979, 45904)]
    requests = Requests()
    responses = stub.FullDuplexCall(requests, timeout=TIMEOUT)
    for size, body in pairs:
        requests.send(messages_pb2.StreamingOutputCallRequest(response_parameters=[messages_pb2.ResponseParameters(size=size)], payload=zeros(body)))
        reply = next(responses)
        check(len(reply.payload.body) == size, f"expected {size} bytes, got {len(reply.payload.body)}")
    requests.close()
    check(next(responses, None) is None, "extra response after half-close")


def empty_stream(stub, channel):
    got = list(stub.FullDuplexCall(iter([]), timeout=TIMEOUT))
    check(got == [], f"{len(got)} responses")


def custom_metadata(stub, channel):
    metadata = (ECHO_INITIAL, ECHO_TRAILING)
    _, call = stub.UnaryCall.with_call(messages_pb2.SimpleRequest(response_size=314159, payload=zeros(271828)), metadata=metadata, timeout=TIMEOUT)
    check(ECHO_INITIAL in tuple(call.initial_metadata()), f"unary initial metadata {call.initial_metadata()}")
    check(ECHO_TRAILING in tuple(call.trailing_metadata()), f"unary trailing metadata {call.trailing_metadata()}")

    request = messages_pb2.StreamingOutputCallRequest(response_parameters=[messages_pb2.ResponseParameters(size=314159)], payload=zeros(271828))
    responses = stub.FullDuplexCall(iter([request]), metadata=metadata, timeout=TIMEOUT)
    sizes = [len(r.payload.body) for r in responses]
    check(sizes == [314159], f"full duplex sizes {sizes}")
    check(ECHO_INITIAL in tuple(responses.initial_metadata()), f"full duplex initial metadata {responses.initial_metadata()}")
    check(ECHO_TRAILING in tuple(responses.trailing_metadata()), f"full duplex trailing metadata {responses.trailing_metadata()}")


def echo_status_case(stub, message):
    status = messages_pb2.EchoStatus(code=2, message=message)
    error = expect_code(lambda: stub.UnaryCall(messages_pb2.SimpleRequest(response_status=status), timeout=TIMEOUT), grpc.StatusCode.UNKNOWN)
    check(error.details() == message, f"unary details {error.details()!r}")
    return status


def status_code_and_message(stub, channel):
    status = echo_status_case(stub, "test status message")
    error = expect_code(
        lambda: list(stub.FullDuplexCall(iter([messages_pb2.StreamingOutputCallRequest(response_status=status)]), timeout=TIMEOUT)),
        grpc.StatusCode.UNKNOWN,
    )
    check(error.details() == "test status message", f"full duplex details {error.details()!r}")


def special_status_message(stub, channel):
    echo_status_case(stub, SPECIAL_MESSAGE)


def unimplemented_method(stub, channel):
    # The case's path (TestService/UnimplementedCall) is unknown to the server, and the proto's
    # UnimplementedMethod has no handler: both must be UNIMPLEMENTED.
    raw = channel.unary_unary("/grpc.testing.TestService/UnimplementedCall", request_serializer=empty_pb2.Empty.SerializeToString, response_deserializer=empty_pb2.Empty.FromString)
    expect_code(lambda: raw(empty_pb2.Empty(), timeout=TIMEOUT), grpc.StatusCode.UNIMPLEMENTED)
    expect_code(lambda: stub.UnimplementedMethod(empty_pb2.Empty(), timeout=TIMEOUT), grpc.StatusCode.UNIMPLEMENTED)


def unimplemented_service(stub, channel):
    other = test_pb2_grpc.UnimplementedServiceStub(channel)
    expect_code(lambda: other.UnimplementedCall(empty_pb2.Empty(), timeout=TIMEOUT), grpc.StatusCode.UNIMPLEMENTED)


def cancel_after_begin(stub, channel):
    requests = Requests()
    future = stub.StreamingInputCall.future(requests, timeout=TIMEOUT)
    future.cancel()
    requests.close()
    check(future.cancelled(), "future not cancelled")
    check(future.code() == grpc.StatusCode.CANCELLED, f"status {future.code()}")


def cancel_after_first_response(stub, channel):
    requests = Requests()
    responses = stub.FullDuplexCall(requests, timeout=TIMEOUT)
    requests.send(messages_pb2.StreamingOutputCallRequest(response_parameters=[messages_pb2.ResponseParameters(size=31415)], payload=zeros(27182)))
    first = next(responses)
    check(len(first.payload.body) == 31415, "first response size")
    responses.cancel()
    requests.close()
    check(responses.code() == grpc.StatusCode.CANCELLED, f"status {responses.code()}")


def timeout_on_sleeping_server(stub, channel):
    requests = Requests()
    responses = stub.FullDuplexCall(requests, timeout=0.001)
    requests.send(messages_pb2.StreamingOutputCallRequest(payload=zeros(27182)))
    try:
        for _ in responses:
            pass
        raise CaseFailed("the call succeeded")
    except grpc.RpcError as error:
        check(error.code() == grpc.StatusCode.DEADLINE_EXCEEDED, f"status {error.code().name}")
    finally:
        requests.close()


CASES = [
    empty_unary,
    large_unary,
    client_compressed_unary,
    server_compressed_unary,
    client_streaming,
    client_compressed_streaming,
    server_streaming,
    server_compressed_streaming,
    ping_pong,
    empty_stream,
    custom_metadata,
    status_code_and_message,
    special_status_message,
    unimplemented_method,
    unimplemented_service,
    cancel_after_begin,
    cancel_after_first_response,
    timeout_on_sleeping_server,
]


def main():
    only = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else None
    results = {}
    with grpc.insecure_channel(sys.argv[2]) as channel:
        stub = test_pb2_grpc.TestServiceStub(channel)
        for case in CASES:
            if only is not None and case.__name__ not in only:
                continue
            try:
                case(stub, channel)
                results[case.__name__] = {"ok": True, "detail": ""}
            except CaseFailed as failure:
                results[case.__name__] = {"ok": False, "detail": str(failure)}
            except Exception:  # noqa: BLE001 - report any failure per case
                results[case.__name__] = {"ok": False, "detail": traceback.format_exc(limit=3)}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
