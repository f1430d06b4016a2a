import { describe, expect, it } from 'vitest';
import { createGuard } from '../../src/index.js';
import { resolvedExecutes, resolvedQueries } from './corpus.js';
import { accepted, rejected } from './helpers.js';

/**
 * Every name resolves, or the statement is refused (guard.md). PostgreSQL reads `t.f` as the call `f(t)`
 * when `t` has no column `f`, and a bare relation name as its whole row: each of these reaches a function
 * (or a record value) through a column reference, whatever the server's catalog holds.
 */
describe('field notation and unresolved names', () => {
  const fieldNotation = [
    'SELECT f.json_agg FROM fx_rates_daily f',
    'SELECT f.array_agg FROM fx_rates_daily f',
    'SELECT f.jsonb_agg FROM fx_rates_daily f',
    'SELECT f.any_value FROM fx_rates_daily f',
    'SELECT f.bool_and FROM fx_rates_daily f',
    'SELECT f.every FROM fx_rates_daily f',
    'SELECT l.count FROM ledger_entries l',
    'SELECT l.to_json FROM ledger_entries l',
    'SELECT l.to_jsonb FROM ledger_entries l',
    'SELECT l.row_to_json FROM ledger_entries l',
    'SELECT l.json_strip_nulls FROM ledger_entries l',
    'SELECT l.pg_sleep FROM ledger_entries l',
    'SELECT ledger_entries.json_agg FROM ledger_entries',
    'SELECT 1 FROM ledger_entries l WHERE l.num_nulls = 0',
    'SELECT 1 FROM ledger_entries l ORDER BY l.json_agg',
    'SELECT 1 FROM ledger_entries l GROUP BY l.hash_record',
    'SELECT x.json_agg FROM (SELECT 1 AS a) x',
    'SELECT x.json_agg FROM (SELECT amount FROM ledger_entries) x',
    'WITH c AS (SELECT amount FROM ledger_entries) SELECT c.json_agg FROM c',
    'WITH c(a) AS (SELECT amount FROM ledger_entries) SELECT c.amount FROM c',
    'SELECT v.json_agg FROM (VALUES (1), (2)) v',
    'SELECT v.column1 FROM (VALUES (1), (2)) v(a)',
    'SELECT j.json_agg FROM (ledger_entries l JOIN budget_lines b USING (category)) j',
    'SELECT u.note FROM ledger_entries l JOIN budget_lines b USING (category) AS u',
    'SELECT s.amount FROM (SELECT sum(amount) FROM ledger_entries) s',
    'SELECT s.integer FROM (SELECT 1::integer) s',
    // The innermost scope that has the qualifier wins: the inner f has no column rate.
    'SELECT 1 FROM fx_rates_daily f WHERE EXISTS (SELECT 1 FROM ledger_entries f WHERE f.rate > 0)',
    // A JOIN's ON sees only its two sides: here `a` is the outer fx_rates_daily, which has no note.
    'SELECT 1 FROM fx_rates_daily a WHERE EXISTS (SELECT 1 FROM ledger_entries a, budget_lines b JOIN ledger_entries c ON a.note = c.note)',
    // A FROM subquery without LATERAL does not see its level: `l` is the outer fx_rates_daily.
    'SELECT 1 FROM fx_rates_daily l WHERE EXISTS (SELECT 1 FROM ledger_entries l, (SELECT l.note) s)',
  ];
  const wholeRow = [
    'SELECT l FROM ledger_entries l',
    'SELECT count(l) FROM ledger_entries l',
    'SELECT count(l.*) FROM ledger_entries l',
    'SELECT max(l) FROM ledger_entries l',
    'SELECT 1 FROM ledger_entries l WHERE l.* IS NOT NULL',
    'SELECT ROW(l.*) FROM ledger_entries l',
    'SELECT 1 FROM ledger_entries l ORDER BY l',
    'SELECT coalesce(l, l) FROM ledger_entries l',
    'SELECT x FROM (SELECT 1 AS a) x',
    'SELECT fx_rates_daily FROM fx_rates_daily',
  ];
  const unresolved = [
    'SELECT json_agg FROM fx_rates_daily',
    'SELECT ctid FROM ledger_entries',
    'SELECT xmin FROM ledger_entries',
    'SELECT nope.amount FROM ledger_entries',
    'SELECT amount FROM fx_rates_daily',
    'SELECT 1 FROM ledger_entries l JOIN budget_lines b USING (amount)',
    'SELECT note FROM ledger_entries UNION SELECT note FROM budget_lines ORDER BY ledger_entries.note',
  ];
  const writes = [
    'INSERT INTO ledger_entries (json_agg) VALUES (1)',
    "UPDATE ledger_entries SET json_agg = 'x'",
    "UPDATE ledger_entries l SET note = 'x' RETURNING l.json_agg",
    'UPDATE ledger_entries l SET note = a.json_agg FROM accounts a',
    'DELETE FROM ledger_entries l USING accounts a WHERE a.to_json IS NULL',
    'DELETE FROM ledger_entries l RETURNING l',
    // The inserted rows do not see the target relation.
    'INSERT INTO ledger_entries (note) SELECT note',
    // PostgreSQL 18's RETURNING old/new are not names the guard resolves.
    "UPDATE ledger_entries SET note = 'x' RETURNING old.note",
  ];

  it('refuses field notation on relations, subqueries, CTEs, VALUES lists and joins', () => {
    for (const sql of fieldNotation) rejected(sql, 'column_not_allowed');
  });

  it('refuses whole-row references, inside and outside function calls', () => {
    for (const sql of wholeRow) rejected(sql, 'column_not_allowed');
  });

  it('refuses every other name that resolves to no column in scope', () => {
    for (const sql of unresolved) rejected(sql, 'column_not_allowed');
  });

  it('refuses unresolved names in INSERT, UPDATE, DELETE and RETURNING', () => {
    for (const sql of writes) rejected(sql, 'column_not_allowed', 'execute');
  });

  it('names the reference in the message and lists the columns in scope in the hint', () => {
    const e = rejected('SELECT f.json_agg FROM fx_rates_daily f', 'column_not_allowed');
    expect(e.message).toContain('f.json_agg');
    expect(e.hint).toBe('columns of f: base_currency, quote_currency, calendar_date, rate, source_rate_date');
    expect(e.position).toEqual({ offset: 7, line: 1, column: 8 });
    const b = rejected('SELECT l FROM ledger_entries l', 'column_not_allowed');
    expect(b.message).toContain('whole row');
    expect(b.hint).toContain('columns in scope: entry_id, workspace_id, event_id, ts, account_id, amount');
    const w = rejected('SELECT x.a FROM (SELECT 1 AS b) x', 'column_not_allowed');
    expect(w.hint).toBe('columns of x: b');
  });

  it('accepts what does resolve, with PostgreSQL scoping', () => {
    for (const sql of resolvedQueries) accepted(sql);
    for (const sql of resolvedExecutes) accepted(sql, 'execute');
  });

  it('resolves names of real catalog functions when the dialect has such columns', async () => {
    const g = await createGuard({
      dialect: {
        relations: { t: { operations: ['select'], columns: ['json_agg', 'to_json', 'count'] } },
        functions: ['count'],
        castTypes: [],
      },
    });
    expect(g.check('SELECT t.json_agg, t.to_json, t.count, count FROM t', { mode: 'query' }).ok).toBe(true);
    const r = g.check('SELECT t.array_agg FROM t', { mode: 'query' });
    expect(!r.ok && r.error.code).toBe('column_not_allowed');
  });
});
