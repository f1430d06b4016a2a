import { describe, expect, it } from 'vitest';
import { accepted, guard, rejected, rejectedAt } from './helpers.js';

describe('statement kinds and modes', () => {
  it('query mode takes exactly one read-only SELECT (WITH, VALUES and TABLE included)', () => {
    expect(accepted('SELECT 1')[0]).toMatchObject({ kind: 'select', readOnly: true, relations: [] });
    accepted('WITH t AS (SELECT amount FROM ledger_entries) SELECT sum(amount) FROM t');
    expect(accepted('VALUES (1, 2), (3, 4)')[0]!.kind).toBe('select');
    expect(accepted('TABLE accounts')[0]!.relations).toEqual([{ name: 'accounts', access: 'read' }]);
  });

  it('rejects writes in query mode and names the right mode', () => {
    const e = rejected("DELETE FROM ledger_entries WHERE external_id = '1'", 'statement_kind_mismatch');
    expect(e.hint).toContain('execute mode');
    const w = rejected(
      'WITH d AS (DELETE FROM ledger_entries RETURNING entry_id) SELECT count(*) FROM d',
      'statement_kind_mismatch',
    );
    expect(w.hint).toContain('script mode');
  });

  it('execute mode takes one INSERT/UPDATE/DELETE and rejects reads with a query-mode hint', () => {
    expect(
      accepted("UPDATE ledger_entries SET note = 'x' WHERE external_id = '1'", 'execute')[0],
    ).toMatchObject({
      kind: 'update',
      readOnly: false,
    });
    const e = rejected('SELECT 1', 'statement_kind_mismatch', 'execute');
    expect(e.hint).toContain('query mode');
    const d = accepted(
      "WITH old AS (DELETE FROM budget_lines WHERE category = 'c' RETURNING *) INSERT INTO budget_lines SELECT * FROM old",
      'execute',
    );
    expect(d[0]!.relations).toEqual([
      { name: 'budget_lines', access: 'delete' },
      { name: 'budget_lines', access: 'insert' },
    ]);
  });

  it('a data-modifying WITH under SELECT is a write: accepted only in script mode, readOnly false', () => {
    const sql =
      "WITH d AS (DELETE FROM ledger_entries WHERE external_id = '1' RETURNING entry_id) SELECT entry_id FROM d";
    rejected(sql, 'statement_kind_mismatch', 'execute');
    const [s] = accepted(sql, 'script');
    expect(s).toMatchObject({ kind: 'select', readOnly: false });
  });

  it('multiple statements: rejected in query/execute at the second one, counted in script mode', () => {
    rejectedAt('SELECT 1; SELECT 2', 'multiple_statements_not_allowed', 'SELECT 2');
    rejectedAt(
      'DELETE FROM ledger_entries; DELETE FROM budget_lines',
      'multiple_statements_not_allowed',
      'DELETE FROM budget_lines',
      'execute',
    );
    expect(accepted('SELECT 1; SELECT 2;', 'script')).toHaveLength(2);
    const many = Array.from({ length: 101 }, () => 'SELECT 1').join(';');
    rejected(many, 'too_many_statements', 'script');
    expect(accepted(Array.from({ length: 100 }, () => 'SELECT 1').join(';'), 'script')).toHaveLength(100);
  });

  it('a single trailing semicolon is not a statement; empty input is empty_sql', () => {
    expect(accepted('SELECT 1;')).toHaveLength(1);
    expect(accepted('SELECT 1;;')).toHaveLength(1);
    rejected('', 'empty_sql');
    rejected('   \n\t ', 'empty_sql');
    rejected(';', 'empty_sql');
    rejected(' ; ; ', 'empty_sql', 'script');
  });

  it('rejects every other statement kind with statement_not_allowed, in every mode', () => {
    for (const mode of ['query', 'execute', 'script'] as const) {
      rejected('BEGIN', 'statement_not_allowed', mode);
      rejected('CREATE TABLE x (a int)', 'statement_not_allowed', mode);
      rejected(
        'MERGE INTO ledger_entries l USING budget_lines b ON l.id = b.id WHEN MATCHED THEN DELETE',
        'statement_not_allowed',
        mode,
      );
    }
    const e = rejected("SET search_path = 'public'", 'statement_not_allowed');
    expect(e.message).toContain('SET');
  });

  it('script mode reports the statement index', () => {
    const e = rejected('SELECT 1; SELECT 2; DROP TABLE ledger_entries', 'statement_not_allowed', 'script');
    expect(e.statementIndex).toBe(2);
    const c = rejected('SELECT 1;\nSELECT 2 -- x', 'comment_not_allowed', 'script');
    expect(c.statementIndex).toBe(1);
    const q = rejected('SELECT 1 FROM pg_class', 'relation_not_allowed');
    expect(q.statementIndex).toBeUndefined();
  });

  it('CheckedStatement.sql is the exact text without the semicolon; location in UTF-16 units', () => {
    const sql = "  SELECT 'é' ;\n INSERT INTO ledger_entries (note) VALUES ('😀') ;  ";
    const statements = accepted(sql, 'script');
    expect(statements.map((s) => s.sql)).toEqual([
      "SELECT 'é'",
      "INSERT INTO ledger_entries (note) VALUES ('😀')",
    ]);
    for (const s of statements)
      expect(sql.slice(s.location.offset, s.location.offset + s.location.length)).toBe(s.sql);
    expect(accepted('SELECT 1')[0]!.location).toEqual({ offset: 0, length: 8 });
  });

  it('never throws for a bad mode or a non-string', () => {
    expect(guard.check('SELECT 1', { mode: 'nope' as 'query' }).ok).toBe(false);
    expect(guard.check(42 as unknown as string, { mode: 'query' }).ok).toBe(false);
  });
});
