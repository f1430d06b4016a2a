// The contract: every refusal of `run` is a GuardRunError with a code, the check's refusal of the text too.
import { describe, expect, it } from 'vitest';
import { createGuard, GuardCheckError, GuardRunError } from '../../src/index.js';

describe('a refusal of the text by run', () => {
  it('is a GuardRunError (a GuardCheckError) with the check’s code, hint and position', async () => {
    const guard = await createGuard();
    try {
      let thrown: unknown;
      const session = {
        query: async () => {
          throw new Error('nothing may be sent');
        },
      };
      try {
        // biome-ignore lint/suspicious/noExplicitAny: no statement reaches the session, whatever its shape
        await guard.run(session as any, 'SELECT * FROM pg_authid', { mode: 'query' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(GuardRunError);
      expect(thrown).toBeInstanceOf(GuardCheckError);
      const error = thrown as GuardCheckError;
      expect(error.code).toBe(error.violation.code);
      expect(error.code).toMatch(/^[a-z_]+$/);
      expect(error.hint).toBe(error.violation.hint);
      expect(error.toJSON()).toMatchObject({ code: error.violation.code, message: error.violation.message });
      expect(error.details.position).toEqual(error.violation.position);
    } finally {
      await guard.close();
    }
  });
});
