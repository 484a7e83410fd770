/**
 * protovalidate for generated services on a plain `server.grpc()`: every
 * request (each item of a request stream) is checked against its
 * buf.validate rules after middleware and before the handler, so handlers
 * never call a validator. A refused request answers INVALID_ARGUMENT with a
 * `google.rpc.BadRequest` in `grpc-status-details-bin` (errors.ts).
 * protovalidate loads with the first generated service registered.
 */
import type { GrpcCall } from './call';
import type { MethodDescriptor, ServiceDescriptor } from '../rpc/descriptor';
import type { ValidationEngine } from '../validation/compiled-validator';
import { checkInvalidItems, validateEach, type InvalidItemPolicy } from '../validation/stream-items';

/** `app.addService(descriptor, handlers, options)` for generated services. */
export interface DescriptorOptions {
  /** Check responses against their rules too (development aid; a failure is INTERNAL); default false. */
  validateResponses?: boolean;
  /** `compiled` (default) checks buf.validate rules with the validators fw-gen compiled, `protovalidate` with protovalidate's interpreter (same verdicts; the way back if they ever differ). */
  validation?: ValidationEngine;
  /** Per method (camelCase or PascalCase): `invalidItems: 'deliver'` hands invalid stream items to the handler with their violations. */
  methods?: Record<string, { invalidItems?: InvalidItemPolicy }>;
}

/** How one method's requests are decoded and checked. */
export interface RequestChecks {
  /** Request bytes → handler request (keeps the bytes for validation); undefined → the codec's decode. */
  decode: ((bytes: Uint8Array) => unknown) | undefined;
  /** What the handler receives: the checked request, or the checked request stream. */
  input(call: GrpcCall): unknown;
  /** The handler's result, checked when response validation is on. */
  output(result: unknown): unknown;
}

function unchecked(streamsIn: boolean): RequestChecks {
  return { decode: undefined, input: streamsIn ? (call) => call.requests : (call) => call.request, output: (result) => result };
}

/** The checks of `method`; none when its request and response carry no rules. */
export function requestChecks(service: ServiceDescriptor, method: MethodDescriptor, options: DescriptorOptions): RequestChecks {
  const streamsIn = method.streaming === 'client' || method.streaming === 'bidirectional';
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { methodGates } = require('../rpc/message-gate') as typeof import('../rpc/message-gate');
  const gates = methodGates(service, method, { validation: options.validation });
  if (gates === undefined) return unchecked(streamsIn);
  const request = gates.request;
  const response = options.validateResponses === true && gates.response.ruled && (method.streaming === 'none' || method.streaming === 'client') ? gates.response : undefined;
  if (!request.ruled && response === undefined) return unchecked(streamsIn);
  const policy = checkInvalidItems((options.methods?.[method.localName] ?? options.methods?.[method.name])?.invalidItems, `${service.typeName}.${method.localName}`);
  const check = (value: unknown): void => request.check(value);
  let input: (call: GrpcCall) => unknown;
  if (streamsIn) input = (call) => (request.ruled && call.requests !== undefined ? validateEach(call.requests, check, policy) : call.requests);
  else input = (call) => {
    request.check(call.request);
    return call.request;
  };
  const output = (result: unknown): unknown => {
    if (response === undefined) return result;
    if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
      return (result as Promise<unknown>).then((value) => {
        response.check(value);
        return value;
      });
    }
    response.check(result);
    return result;
  };
  return { decode: (bytes) => request.fromBinary(bytes), input, output };
}
