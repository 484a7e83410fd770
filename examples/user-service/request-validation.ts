/**
 * Validates decoded requests against the JSON Schemas fw-gen emitted from the
 * proto's `buf.validate` rules (ajv + ajv-formats), so gRPC callers get the
 * same INVALID_ARGUMENT the gateway gives HTTP callers.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { GrpcError, GrpcStatus } from 'fw/grpc';
import type { JsonSchema } from 'fw';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * Throws INVALID_ARGUMENT when `request` breaks `schema`.
 * @example
 * validateRequest(UserServiceValidation.createUser.jsonSchema, request);
 */
export function validateRequest(schema: JsonSchema, request: unknown): void {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(request)) return;
  const first = validate.errors?.[0];
  const where = first?.instancePath === undefined || first.instancePath === '' ? 'request' : first.instancePath.slice(1).replace(/\//g, '.');
  throw new GrpcError(GrpcStatus.INVALID_ARGUMENT, `${where} ${first?.message ?? 'is invalid'}`);
}
