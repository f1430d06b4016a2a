import { describe, expect, it } from 'vitest';
import { accepted, rejected, rejectedAt } from './helpers.js';

describe('operators', () => {
  it('accepts comparison, arithmetic, ||, LIKE/ILIKE, BETWEEN, IN, IS [NOT] DISTINCT FROM, IS NULL, boolean logic', () => {
    accepted(
      'SELECT amount * 2 + 1 - 3 / 4 % 5, -amount, +amount, note || category FROM ledger_entries ' +
        'WHERE (amount >= 1 AND amount <= 2 OR amount <> 3 AND amount != 4 AND amount < 5 AND amount > 0 AND amount = 1) ' +
        "AND note LIKE 'a%' AND note NOT LIKE 'b%' AND note ILIKE '%c' AND note NOT ILIKE 'd' " +
        "AND note LIKE 'x!%' ESCAPE '!' AND amount BETWEEN 1 AND 2 AND amount NOT BETWEEN SYMMETRIC 3 AND 4 " +
        'AND category IN (1, 2) AND category NOT IN (3) AND note IS DISTINCT FROM category ' +
        'AND note IS NOT DISTINCT FROM category AND note IS NULL AND note IS NOT NULL AND NOT (amount IS TRUE)',
    );
    accepted("SELECT (amount, entry_id) = (1, '2d9c0f4e-8a55-4b7a-9d8e-0d6a2b1f3c11') FROM ledger_entries");
  });

  it('rejects regex, JSON and other operators, and OPERATOR(schema.op), with hints', () => {
    expect(
      rejectedAt("SELECT 1 FROM ledger_entries WHERE note ~ 'a'", 'construct_not_allowed', '~').hint,
    ).toContain('LIKE');
    rejected("SELECT 1 FROM ledger_entries WHERE note ~* 'a'", 'construct_not_allowed');
    rejected("SELECT 1 FROM ledger_entries WHERE note !~ 'a'", 'construct_not_allowed');
    rejected("SELECT 1 FROM ledger_entries WHERE note SIMILAR TO 'a'", 'construct_not_allowed');
    expect(rejected("SELECT meta -> 'a' FROM account_metadata", 'construct_not_allowed').hint).toContain(
      'JSON',
    );
    rejected("SELECT meta ->> 'a' FROM account_metadata", 'construct_not_allowed');
    rejected('SELECT 2 ^ 10', 'construct_not_allowed');
    rejected('SELECT 1 & 2', 'construct_not_allowed');
    rejected('SELECT @ -1', 'construct_not_allowed');
    rejected('SELECT 1 OPERATOR(pg_catalog.+) 1', 'construct_not_allowed');
    rejected('SELECT 1 = ANY(ARRAY[1])', 'construct_not_allowed');
    rejected('SELECT amount FROM ledger_entries ORDER BY amount USING <', 'construct_not_allowed');
  });
});
