import { describe, expect, it } from 'vitest';
import { monthlyReport } from './corpus.js';
import { accepted, rejected } from './helpers.js';

describe('WITH RECURSIVE', () => {
  it('accepts a read-only recursive CTE (the 12-month calendar), read-only in query mode', () => {
    const [s] = accepted(monthlyReport);
    expect(s).toMatchObject({
      kind: 'select',
      readOnly: true,
      relations: [{ name: 'ledger_entries', access: 'read' }],
    });
    accepted(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT count(*) FROM r',
    );
    // Without a column list the columns come from the non-recursive arm.
    accepted(
      'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT r.n + 1 FROM r WHERE r.n < 10) SELECT r.n FROM r',
    );
    accepted(
      "WITH RECURSIVE r(d) AS (SELECT DATE '2026-01-01' UNION ALL SELECT (d + 1)::date FROM r WHERE d < DATE '2026-01-31'), s AS (SELECT d FROM r) SELECT s.d FROM s",
    );
    // Read-only recursion feeding a write at the top level.
    accepted(
      "WITH RECURSIVE months(m) AS (SELECT DATE '2027-01-01' UNION ALL SELECT (m + INTERVAL '1 month')::date FROM months WHERE m < DATE '2027-12-01') INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) SELECT m, 'spend', 'rent', 'EUR', 900 FROM months",
      'execute',
    );
  });

  it('refuses UNION (distinct) between the arms of a recursive item: it keeps every row in memory', () => {
    const e = rejected(
      "WITH RECURSIVE r(d) AS (SELECT DATE '2026-01-01' UNION SELECT (d + 1)::date FROM r WHERE d < DATE '2026-01-31') SELECT d FROM r",
      'construct_not_allowed',
    );
    expect(e.message).toMatch(/\br\b/);
    expect(e.message).toMatch(/UNION/);
    expect(e.hint).toMatch(/use UNION ALL plus a WHERE bound/);
    rejected(
      'WITH RECURSIVE r AS (SELECT 1 AS n UNION SELECT r.n + 1 FROM r WHERE r.n < 10) SELECT n FROM r',
      'construct_not_allowed',
    );
    // A later item of the same WITH RECURSIVE, and an item in a write's WITH.
    rejected(
      'WITH RECURSIVE a AS (SELECT 1 AS x), r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r, a WHERE n < a.x) SELECT n FROM r',
      'construct_not_allowed',
    );
    rejected(
      "WITH RECURSIVE months(m) AS (SELECT DATE '2027-01-01' UNION SELECT (m + INTERVAL '1 month')::date FROM months WHERE m < DATE '2027-12-01') INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) SELECT m, 'spend', 'rent', 'EUR', 900 FROM months",
      'construct_not_allowed',
      'execute',
    );
    // A nested WITH RECURSIVE inside a subquery.
    rejected(
      'SELECT * FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r) s',
      'construct_not_allowed',
    );
  });

  it('accepts UNION where nothing recurses through it', () => {
    // An item of WITH RECURSIVE that does not reference itself is an ordinary CTE.
    accepted(
      'WITH RECURSIVE c AS (SELECT category FROM ledger_entries UNION SELECT category FROM budget_lines) SELECT category FROM c',
    );
    // UNION inside the recursive arm deduplicates one step's rows, not the whole result.
    accepted(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL (SELECT n + 1 FROM r WHERE n < 5 UNION SELECT 7 WHERE false)) SELECT n FROM r',
    );
  });

  it('refuses SEARCH and CYCLE clauses', () => {
    rejected(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SEARCH DEPTH FIRST BY n SET o SELECT n FROM r',
      'construct_not_allowed',
    );
    rejected(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) CYCLE n SET c USING p SELECT n FROM r',
      'construct_not_allowed',
    );
  });

  it('refuses a data-modifying item in a recursive WITH, in every mode', () => {
    for (const mode of ['query', 'execute', 'script'] as const) {
      const e = rejected(
        'WITH RECURSIVE d AS (DELETE FROM ledger_entries RETURNING entry_id) SELECT count(*) FROM d',
        mode === 'script' ? 'construct_not_allowed' : 'statement_kind_mismatch',
        mode,
      );
      expect(e.message.length).toBeGreaterThan(0);
    }
    rejected(
      "WITH RECURSIVE d AS (UPDATE ledger_entries SET note = 'x' RETURNING entry_id) INSERT INTO ledger_entries (note) SELECT 'y' FROM d",
      'construct_not_allowed',
      'execute',
    );
  });

  it('resolves the recursive CTE names with their columns', () => {
    rejected(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT r.json_agg FROM r) SELECT n FROM r',
      'column_not_allowed',
    );
    rejected(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT r.to_json FROM r',
      'column_not_allowed',
    );
    rejected(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT r FROM r',
      'column_not_allowed',
    );
    // A later item's column list shadows a relation for the earlier items too: x.note is note(x) here.
    rejected(
      'WITH RECURSIVE a AS (SELECT x.note FROM ledger_entries x), ledger_entries(foo) AS (SELECT 1) SELECT * FROM a',
      'column_not_allowed',
    );
    // A reference before the columns are known (non-recursive arm, mutual recursion) is refused.
    rejected(
      'WITH RECURSIVE r AS (SELECT n FROM r UNION ALL SELECT 1 AS n) SELECT * FROM r',
      'construct_not_allowed',
    );
    rejected(
      'WITH RECURSIVE a AS (SELECT 1 AS x UNION ALL SELECT x FROM b), b AS (SELECT x FROM a) SELECT * FROM a',
      'construct_not_allowed',
    );
  });
});
