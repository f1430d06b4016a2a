import { describe, expect, it } from 'vitest';
import { createGuard, expenseDialect } from '../../src/index.js';
import type { GuardViolation, Mode } from '../../src/types.js';

/** Refusals speak of the guard's modes; a dialect may carry its own texts (a server names its routes). */
describe('hints name modes, or the dialect’s own texts', () => {
  const refusal = async (sql: string, mode: Mode, dialect = expenseDialect): Promise<GuardViolation> => {
    const result = (await createGuard({ dialect })).check(sql, { mode });
    if (result.ok) throw new Error('accepted');
    return result.error;
  };
  const write = "DELETE FROM ledger_entries WHERE note = 'x'";

  it('speaks of modes, never of routes, by default', async () => {
    const cases: [string, Mode][] = [
      [write, 'query'],
      ['SELECT 1', 'execute'],
      ['SELECT 1; SELECT 2', 'query'],
      ['WITH d AS (DELETE FROM ledger_entries RETURNING 1) SELECT count(*) FROM d', 'query'],
    ];
    for (const [sql, mode] of cases) {
      const v = await refusal(sql, mode);
      expect(`${v.message} ${v.hint}`).not.toMatch(/\/sql/);
      expect(`${v.message} ${v.hint}`).toMatch(/(query|execute|script) mode/);
    }
    const w = await refusal(write, 'query');
    expect(w.message).toBe('Query mode takes a read; this is DELETE.');
    expect(w.hint).toBe('run one INSERT, UPDATE or DELETE in execute mode');
  });

  it("takes the dialect's texts", async () => {
    const dialect = {
      ...expenseDialect,
      hints: {
        modes: { query: '/sql/query', execute: '/sql/execute' },
        write: 'send one INSERT, UPDATE or DELETE to /sql/execute',
        oneStatement: 'one per request',
      },
    };
    const w = await refusal(write, 'query', dialect);
    expect(w).toMatchObject({
      message: '/sql/query takes a read; this is DELETE.',
      hint: 'send one INSERT, UPDATE or DELETE to /sql/execute',
    });
    const many = await refusal('SELECT 1; SELECT 2', 'execute', dialect);
    expect(many).toMatchObject({
      message: expect.stringMatching(/^\/sql\/execute takes exactly one/),
      hint: 'one per request',
    });
  });
});
