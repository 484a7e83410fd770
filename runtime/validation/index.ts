/**
 * The light half of validation, exported from `fw`: the violation shape,
 * `violationsOf` for handlers that receive invalid stream items, and the
 * `grpc-status-details-bin` codec. protovalidate itself (rpc/message-gate.ts)
 * loads only when a generated service is registered.
 */
export { violationsOf, isInvalidMessageError, InvalidMessageError, JSON_MAPPING_RULE, type FieldViolation } from './violations';
export { decodeBadRequestStatus, encodeBadRequestStatus, STATUS_DETAILS_KEY } from './status-details';
export type { InvalidItemPolicy } from './stream-items';
export type { CompiledValidator, CompiledValidators, ValidationEngine } from './compiled-validator';
/** What the validators fw-gen compiles call at run time (not for hand-written code). */
export * as validationRules from './rule-checks';
