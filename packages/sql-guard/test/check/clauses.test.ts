import { describe, it } from 'vitest';
import { accepted, rejected } from './helpers.js';

describe('clauses', () => {
  it('accepts the ordinary SELECT clauses', () => {
    accepted(
      'SELECT DISTINCT category FROM ledger_entries WHERE amount > 0 GROUP BY category HAVING count(*) > 1 ' +
        'ORDER BY category DESC NULLS LAST LIMIT 10 OFFSET 5',
    );
    accepted('SELECT DISTINCT ON (category) category, amount FROM ledger_entries ORDER BY category, amount');
    accepted(
      'SELECT category FROM ledger_entries UNION ALL SELECT category FROM budget_lines EXCEPT SELECT category FROM budget_lines',
    );
    accepted('SELECT category, sum(amount) FROM ledger_entries GROUP BY ROLLUP (category)');
    accepted('SELECT * FROM ledger_entries FETCH FIRST 5 ROWS ONLY');
    accepted('SELECT CASE WHEN amount > 0 THEN 1 WHEN amount < 0 THEN -1 ELSE 0 END FROM ledger_entries');
    accepted(
      'SELECT * FROM ledger_entries l LEFT JOIN LATERAL (SELECT 1 AS x) s ON true FULL JOIN accounts a USING (account_id)',
    );
  });

  it('rejects SELECT INTO, locking clauses and ON CONFLICT with their own codes', () => {
    rejected('SELECT * INTO stolen FROM ledger_entries', 'select_into_not_allowed');
    rejected('SELECT * FROM ledger_entries FOR UPDATE', 'locking_clause_not_allowed');
    rejected('SELECT * FROM ledger_entries FOR SHARE', 'locking_clause_not_allowed');
    rejected('SELECT * FROM ledger_entries FOR NO KEY UPDATE SKIP LOCKED', 'locking_clause_not_allowed');
    rejected('SELECT * FROM ledger_entries FOR KEY SHARE', 'locking_clause_not_allowed');
    rejected(
      "INSERT INTO account_metadata (account_id, display_name) VALUES ('a', 'b') ON CONFLICT DO NOTHING",
      'on_conflict_not_allowed',
      'execute',
    );
    rejected(
      "INSERT INTO account_metadata (account_id, display_name) VALUES ('a', 'b') ON CONFLICT (account_id) DO UPDATE SET display_name = 'c'",
      'on_conflict_not_allowed',
      'execute',
    );
  });

  it('rejects other constructs that are not on the allowlist', () => {
    rejected('SELECT * FROM ledger_entries TABLESAMPLE SYSTEM (10)', 'construct_not_allowed');
    rejected('SELECT ARRAY[1, 2]', 'construct_not_allowed');
    rejected('SELECT ARRAY(SELECT 1)', 'construct_not_allowed');
    rejected('SELECT note COLLATE C FROM ledger_entries', 'construct_not_allowed');
    rejected('SELECT ctid, xmin FROM ledger_entries', 'column_not_allowed');
    rejected('SELECT (l).amount FROM ledger_entries l', 'construct_not_allowed');
    rejected('SELECT a.b.c FROM ledger_entries a', 'construct_not_allowed');
    rejected('SELECT $1', 'construct_not_allowed');
    rejected('UPDATE ledger_entries SET amount = 1 WHERE CURRENT OF c', 'construct_not_allowed', 'execute');
    rejected(
      'INSERT INTO ledger_entries OVERRIDING SYSTEM VALUE VALUES (1)',
      'construct_not_allowed',
      'execute',
    );
  });

  it('accepts INSERT ... VALUES/SELECT/DEFAULT VALUES, UPDATE ... FROM, DELETE ... USING, RETURNING', () => {
    accepted(
      "INSERT INTO ledger_entries (amount, note) VALUES (1, 'a'), (2, DEFAULT) RETURNING entry_id, amount",
      'execute',
    );
    accepted('INSERT INTO budget_lines DEFAULT VALUES', 'execute');
    accepted(
      'INSERT INTO budget_lines (category, planned_value) SELECT category, sum(amount) FROM ledger_entries GROUP BY category',
      'execute',
    );
    accepted(
      'UPDATE ledger_entries AS l SET (amount, note) = (1, DEFAULT) FROM accounts a WHERE a.account_id = l.account_id RETURNING *',
      'execute',
    );
    accepted(
      "UPDATE ledger_entries SET (amount, note) = (SELECT 1, note FROM budget_lines LIMIT 1) WHERE external_id = '2'",
      'execute',
    );
    accepted(
      'DELETE FROM ledger_entries l USING accounts a WHERE a.account_id = l.account_id AND a.is_archived',
      'execute',
    );
  });
});
