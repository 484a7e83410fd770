/**
 * Health checks over gRPC: the standard `grpc.health.v1.Health/Check` (what
 * fw's gRPC servers, grpc_health_probe and Kubernetes speak), sent on the
 * instance's own forwarding channel. SERVING is a pass; any other status or
 * error, or no answer within the timeout, is a failure. The message codecs
 * come from proto-loader over the standard health.proto, given as JSON.
 */
import { loadPackageDefinition, type Client, type MethodDefinition } from '@grpc/grpc-js';
import { fromJSON } from '@grpc/proto-loader';

const HEALTH_V1 = {
  HealthCheckRequest: { fields: { service: { type: 'string', id: 1 } } },
  HealthCheckResponse: {
    fields: { status: { type: 'ServingStatus', id: 1 } },
    nested: { ServingStatus: { values: { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } } },
  },
  Health: { methods: { Check: { requestType: 'HealthCheckRequest', responseType: 'HealthCheckResponse' } } },
};

const HEALTH_PROTO = { nested: { grpc: { nested: { health: { nested: { v1: { nested: HEALTH_V1 } } } } } } };

interface HealthResponse {
  status?: string;
}

let check: MethodDefinition<{ service: string }, HealthResponse> | undefined;

function checkMethod(): MethodDefinition<{ service: string }, HealthResponse> {
  if (check === undefined) {
    const definition = fromJSON(HEALTH_PROTO as unknown as Parameters<typeof fromJSON>[0], { enums: String, defaults: true });
    const pkg = loadPackageDefinition(definition) as unknown as { grpc: { health: { v1: { Health: { service: Record<string, MethodDefinition<{ service: string }, HealthResponse>> } } } } };
    check = pkg.grpc.health.v1.Health.service.Check;
  }
  return check as MethodDefinition<{ service: string }, HealthResponse>;
}

/** True when `client`'s server reports `service` ('' = the whole server) SERVING within `timeoutMs`. */
export function probeGrpcHealth(client: Client, service: string, timeoutMs: number): Promise<boolean> {
  const m = checkMethod();
  return new Promise((resolve) => {
    client.makeUnaryRequest(m.path, m.requestSerialize, m.responseDeserialize, { service }, { deadline: Date.now() + timeoutMs }, (error, response) => {
      resolve(error === null && response?.status === 'SERVING');
    });
  });
}
