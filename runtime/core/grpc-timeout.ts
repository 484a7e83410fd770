/**
 * The `grpc-timeout` header (gRPC over HTTP/2: 1–8 digits and a unit,
 * `H M S m u n`), which HTTP clients may also send to the gateway to bound a
 * forwarded call, as grpc-gateway accepts it.
 */

const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };

/** Milliseconds of a `grpc-timeout` value; undefined when it is malformed. */
export function parseGrpcTimeout(value: string): number | undefined {
  const match = /^(\d{1,8})([HMSmun])$/.exec(value);
  if (match === null) return undefined;
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}
