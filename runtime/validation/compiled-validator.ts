/**
 * The shape of the validators fw-gen compiles from buf.validate rules
 * (cli/validators/): one function per message type, over ts-proto's
 * object, appending what protovalidate would report to `out`.
 */
import type { FieldViolation } from './violations';

/**
 * Checks `message` (ts-proto's object) against its rules; `prefix` is the
 * field path of the message ('' at the root, else ending in a dot).
 */
export type CompiledValidator<T = never> = (message: T, prefix: string, out: FieldViolation[]) => void;

/** A compiled validator of a message whose CEL rules (custom and predefined) protovalidate still checks. */
export interface CompiledWithCel {
  readonly validate: CompiledValidator;
  readonly cel: true;
}

/** Compiled validators by fully-qualified message type name, as generated `x.fw.ts` files list them. */
export type CompiledValidators = Readonly<Record<string, CompiledValidator | CompiledWithCel>>;

/** Which validator checks generated messages: fw-gen's compiled code (default) or protovalidate's interpreter. */
export type ValidationEngine = 'compiled' | 'protovalidate';
