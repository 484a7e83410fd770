"""A gRPC reflection client in Python grpcio, as grpcurl-like tools work: for
each reflection version, list the services, fetch the file that defines each
one with the files it needs, load them into a fresh descriptor pool (which
fails on a missing import or type), and print each service's methods with
their input fields. Arguments: stub directory, server address."""
import json
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool

sys.path.insert(0, sys.argv[1])
address = sys.argv[2]


def load_all(pool, blobs):
    """Adds serialized FileDescriptorProtos in any order: a file waits for its imports."""
    pending = {}
    for blob in blobs:
        proto = descriptor_pb2.FileDescriptorProto.FromString(blob)
        pending.setdefault(proto.name, proto)
    added = set()
    for _ in range(len(pending) + 1):
        for name, proto in list(pending.items()):
            if all(dep in added or _known(pool, dep) for dep in proto.dependency):
                if not _known(pool, name):
                    pool.Add(proto)
                added.add(name)
                del pending[name]
    if pending:
        raise RuntimeError('files whose imports never arrived: %s' % sorted(pending))


def _known(pool, name):
    try:
        pool.FindFileByName(name)
        return True
    except KeyError:
        return False


def explore(version):
    module = __import__('%s_reflection_pb2' % version)
    grpc_module = __import__('%s_reflection_pb2_grpc' % version)
    with grpc.insecure_channel(address) as channel:
        stub = grpc_module.ServerReflectionStub(channel)

        def ask(**question):
            replies = list(stub.ServerReflectionInfo(iter([module.ServerReflectionRequest(host='', **question)]), timeout=10))
            assert len(replies) == 1
            return replies[0]

        listed = [s.name for s in ask(list_services='*').list_services_response.service]
        pool = descriptor_pool.DescriptorPool()
        services = {}
        for name in listed:
            reply = ask(file_containing_symbol=name)
            load_all(pool, reply.file_descriptor_response.file_descriptor_proto)
            service = pool.FindServiceByName(name)
            services[name] = {m.name: [f.name for f in m.input_type.fields] for m in service.methods}
        missing = ask(file_containing_symbol='no.such.Symbol').error_response.error_code
        return {'services': services, 'missing_code': missing}


print(json.dumps({'v1': explore('v1'), 'v1alpha': explore('v1alpha')}))
