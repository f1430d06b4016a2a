import type { GuardErrorCode } from '../types.js';

/**
 * A rule violation found while walking, thrown to unwind the walk and caught by the checker.
 * `byte` is a UTF-8 byte offset from the parser (-1 when unknown); the checker turns it into a position.
 */
export class Violation {
  constructor(
    readonly code: GuardErrorCode,
    readonly message: string,
    readonly hint: string | undefined,
    readonly byte: number,
    /** The situation of the code the refusal names, and the values its texts interpolate (GuardViolation). */
    readonly situation?: { variant: string; facts?: Readonly<Record<string, string | number>> },
  ) {}
}

export function violation(
  code: GuardErrorCode,
  message: string,
  hint: string | undefined,
  byte: number,
): never {
  throw new Violation(code, message, hint, byte);
}
