/**
 * Health checks over gRPC: the standard `grpc.health.v1.Health/Check` (what
 * fw's gRPC servers, grpc_health_probe and Kubernetes speak), sent on the
 * instance's own forwarding channel. SERVING is a pass; any other status or
 * error, or no answer within the timeout, is a failure. The two messages
 * have one field each, so they are written and read with the wire codec.
 */
import type { Client } from '@grpc/grpc-js';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

const CHECK_PATH = '/grpc.health.v1.Health/Check';
/** HealthCheckResponse.ServingStatus.SERVING */
const SERVING = 1;

/** HealthCheckRequest { string service = 1; } */
function encodeRequest(request: { service: string }): Buffer {
  const writer = new BinaryWriter();
  if (request.service !== '') writer.tag(1, WireType.LengthDelimited).string(request.service);
  return Buffer.from(writer.finish());
}

/** HealthCheckResponse { ServingStatus status = 1; }, other fields skipped. */
function decodeStatus(bytes: Buffer): number {
  const reader = new BinaryReader(bytes);
  let status = 0;
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.Varint) status = reader.int32();
    else reader.skip(wireType);
  }
  return status;
}

/** True when `client`'s server reports `service` ('' = the whole server) SERVING within `timeoutMs`. */
export function probeGrpcHealth(client: Client, service: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(CHECK_PATH, encodeRequest, decodeStatus, { service }, { deadline: Date.now() + timeoutMs }, (error, status) => {
      resolve(error === null && status === SERVING);
    });
  });
}
