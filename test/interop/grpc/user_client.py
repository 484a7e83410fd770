"""A grpcio client nobody on the fw team wrote the transport of: calls a fw gRPC
server with all four call kinds, reads a status error, and runs a health Check.
Usage: user_client.py <stubs_dir> <host:port>. Prints one JSON object."""
import json
import sys

sys.path.insert(0, sys.argv[1])

import grpc  # noqa: E402
import health_pb2  # noqa: E402
import health_pb2_grpc  # noqa: E402
import user_pb2  # noqa: E402
import user_pb2_grpc  # noqa: E402


def main():
    out = {}
    with grpc.insecure_channel(sys.argv[2]) as channel:
        users = user_pb2_grpc.UserServiceStub(channel)
        created = users.CreateUser(user_pb2.CreateUserRequest(name="Py", email="py@example.com", roles=["reader"]), timeout=5)
        out["created"] = {"id": created.id, "name": created.name, "roles": list(created.roles), "created_seconds": created.created_at.seconds}
        fetched = users.GetUser(user_pb2.GetUserRequest(id=created.id), timeout=5)
        out["fetched_email"] = fetched.email

        try:
            users.GetUser(user_pb2.GetUserRequest(id="missing"), timeout=5)
            out["error"] = None
        except grpc.RpcError as error:
            out["error"] = {"code": error.code().name, "code_value": error.code().value[0], "details": error.details()}

        batch = users.CreateMultipleUsers(
            iter([user_pb2.CreateUserRequest(name="P1", email="p1@example.com"), user_pb2.CreateUserRequest(name="P2", email="p2@example.com")]),
            timeout=5,
        )
        out["batch_count"] = batch.count

        out["listed"] = [u.name for u in users.ListUsers(user_pb2.ListUsersRequest(page=1, limit=2), timeout=5)]

        messages = iter([user_pb2.ChatMessage(user_id="py", message="hello"), user_pb2.ChatMessage(user_id="py", message="bye")])
        out["chat"] = [[m.user_id, m.message] for m in users.ChatWithUsers(messages, timeout=5)]

        # An inline fw service speaks JSON in gRPC frames: plain grpcio with JSON serializers.
        echo = channel.unary_unary(
            "/Echo/Echo",
            request_serializer=lambda value: json.dumps(value).encode("utf-8"),
            response_deserializer=lambda data: json.loads(data.decode("utf-8")),
        )
        out["json_echo"] = echo({"hello": "from python", "n": 3}, timeout=5)

        health = health_pb2_grpc.HealthStub(channel)
        out["health_overall"] = health_pb2.HealthCheckResponse.ServingStatus.Name(health.Check(health_pb2.HealthCheckRequest(), timeout=5).status)
        out["health_users"] = health_pb2.HealthCheckResponse.ServingStatus.Name(
            health.Check(health_pb2.HealthCheckRequest(service="user.UserService"), timeout=5).status
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
