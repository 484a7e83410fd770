/**
 * Errors the CLI reports to the user without a stack trace, each with the
 * process exit code it maps to (docs/codegen.md "Exit codes").
 */

/** Exit codes of `fw-gen`. */
export const ExitCode = {
  /** Everything generated, or `--check` found the tree up to date. */
  ok: 0,
  /** `--check` found a stale, missing or extra file, or a stub lacking a method. */
  drift: 1,
  /** Bad usage or bad input: unknown option, missing file, proto syntax error. */
  usage: 2,
} as const;

/** A refusal caused by the user's arguments or proto files (exit code 2). */
export class InputError extends Error {
  override readonly name = 'InputError';
  /**
   * @param message one or more lines, already formatted for a terminal
   */
  constructor(message: string) {
    super(message);
  }
}
