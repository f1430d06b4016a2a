import { describe, expect, it } from 'vitest';
import { createGuard } from '../../src/index.js';
import { accepted, rejected, rejectedAt } from './helpers.js';

describe('relations and operations', () => {
  it('reports every base relation touched, deduplicated, with its access', () => {
    const [s] = accepted(
      'SELECT b.category FROM budget_lines b JOIN ledger_entries l ON l.category = b.category ' +
        'WHERE EXISTS (SELECT 1 FROM ledger_entries x WHERE x.entry_id = l.entry_id) AND b.planned_value > (SELECT min(rate) FROM fx_rates_daily)',
    );
    expect(s!.relations).toEqual([
      { name: 'budget_lines', access: 'read' },
      { name: 'ledger_entries', access: 'read' },
      { name: 'fx_rates_daily', access: 'read' },
    ]);
    const [u] = accepted(
      'UPDATE ledger_entries SET amount = 1 FROM accounts a WHERE a.account_id = ledger_entries.account_id',
      'execute',
    );
    expect(u!.relations).toEqual([
      { name: 'ledger_entries', access: 'update' },
      { name: 'accounts', access: 'read' },
    ]);
  });

  it('rejects relations outside the dialect and qualified names, at the relation', () => {
    rejectedAt('SELECT * FROM pg_authid', 'relation_not_allowed', 'pg_authid');
    rejectedAt('SELECT * FROM ledger_entries l JOIN users u ON true', 'relation_not_allowed', 'users');
    const e = rejectedAt('SELECT * FROM public.ledger_entries', 'relation_not_allowed', 'public.');
    expect(e.hint).toContain('without the schema');
    rejected('SELECT * FROM db.public.ledger_entries', 'relation_not_allowed');
    rejected('SELECT * FROM information_schema.tables', 'relation_not_allowed');
  });

  it('rejects writes to read-only relations with operation_not_allowed', () => {
    rejectedAt(
      "INSERT INTO accounts (display_name) VALUES ('x')",
      'operation_not_allowed',
      'accounts',
      'execute',
    );
    rejected('UPDATE fx_rates_daily SET rate = 1', 'operation_not_allowed', 'execute');
    rejected('DELETE FROM fx_rates_raw', 'operation_not_allowed', 'execute');
    rejected('WITH d AS (DELETE FROM accounts RETURNING 1) SELECT 1', 'operation_not_allowed', 'script');
  });

  it('honours a custom dialect', async () => {
    const g = await createGuard({
      dialect: {
        relations: { items: { operations: ['select'], columns: ['id'] } },
        functions: [],
        castTypes: [],
      },
    });
    expect(g.check('SELECT * FROM items', { mode: 'query' }).ok).toBe(true);
    const r = g.check('SELECT count(*) FROM items', { mode: 'query' });
    expect(!r.ok && r.error.code).toBe('function_not_allowed');
    const l = g.check('SELECT * FROM ledger_entries', { mode: 'query' });
    expect(!l.ok && l.error.code).toBe('relation_not_allowed');
  });
});

describe('CTE scope', () => {
  it('a CTE is a relation inside its statement, after its definition', () => {
    const [s] = accepted(
      'WITH x AS (SELECT 1 AS a), y AS (SELECT a FROM x) SELECT * FROM y JOIN x USING (a)',
    );
    expect(s!.relations).toEqual([]);
    rejectedAt('WITH y AS (SELECT * FROM x), x AS (SELECT 1) SELECT * FROM y', 'relation_not_allowed', 'x)');
  });

  it('a CTE is visible in nested subqueries, and an inner WITH does not leak out', () => {
    accepted('WITH x AS (SELECT 1 AS a) SELECT (SELECT a FROM x), * FROM (SELECT * FROM x) s');
    rejected('SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) s, x', 'relation_not_allowed');
  });

  it('a CTE name is not a relation in a later statement of a script', () => {
    const e = rejected(
      'WITH x AS (SELECT 1) SELECT * FROM x; SELECT * FROM x',
      'relation_not_allowed',
      'script',
    );
    expect(e.statementIndex).toBe(1);
  });

  it('a CTE shadowing a real relation is not that relation, but only in scope', () => {
    const [s] = accepted('WITH accounts AS (SELECT 1 AS id) SELECT * FROM accounts');
    expect(s!.relations).toEqual([]);
    const [t] = accepted('WITH accounts AS (SELECT * FROM accounts) SELECT * FROM accounts');
    expect(t!.relations).toEqual([{ name: 'accounts', access: 'read' }]);
    rejected('WITH pg_authid AS (SELECT * FROM pg_authid) SELECT * FROM pg_authid', 'relation_not_allowed');
  });

  it('a DML target is never a CTE: shadowing a read-only relation does not make it writable', () => {
    rejected('WITH accounts AS (SELECT 1) DELETE FROM accounts', 'operation_not_allowed', 'execute');
    rejected(
      'WITH pg_authid AS (SELECT 1) UPDATE pg_authid SET rolsuper = true',
      'relation_not_allowed',
      'execute',
    );
    rejected("WITH users AS (SELECT 1) INSERT INTO users VALUES ('x')", 'relation_not_allowed', 'execute');
  });

  it('rejects data-modifying WITH below the top level', () => {
    rejected(
      'SELECT * FROM (WITH d AS (DELETE FROM ledger_entries RETURNING entry_id) SELECT entry_id FROM d) s',
      'construct_not_allowed',
      'script',
    );
  });
});
