import { GUARD_ERROR_CODES as guardCodes } from '@expense/sql-guard';
import { statusOf, GUARD_ERROR_CODES as wireCodes } from '@expense/wire';
import { describe, expect, it } from 'vitest';

// The wire package keeps its own copy of the guard's codes (the CLI must not load the parser); this keeps them equal.
describe('error codes on the wire', () => {
  it('are exactly the guard codes of @expense/sql-guard', () => {
    expect([...wireCodes].sort()).toEqual([...guardCodes].sort());
  });

  it('give every guard code an HTTP status of 400', () => {
    for (const code of guardCodes) expect(statusOf(code), code).toBe(400);
  });
});
