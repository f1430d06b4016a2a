import { describe, expect, it } from 'vitest';
import { accepted, rejected, rejectedAt } from './helpers.js';

describe('functions', () => {
  it('accepts the dialect functions, count(*), DISTINCT and FILTER in aggregates', () => {
    accepted(
      'SELECT count(*), count(DISTINCT category), sum(amount) FILTER (WHERE amount > 0), min(ts), max(ts), ' +
        "avg(amount), coalesce(note, category, '') FROM ledger_entries",
    );
    accepted('SELECT SUM(amount), COUNT(entry_id) FROM ledger_entries');
  });

  it('rejects other function calls with a hint to say it in the dialect', () => {
    expect(
      rejectedAt('SELECT lower(note) FROM ledger_entries', 'function_not_allowed', 'lower').hint,
    ).toContain('ILIKE');
    // Ranges on a timestamptz column are written with TIMESTAMPTZ literals (an index can use them under
    // row-level security, DATE bounds not); a date column still takes DATE '...'.
    const now = rejectedAt('SELECT 1 WHERE now() > ts', 'function_not_allowed', 'now').hint;
    expect(now).toContain(
      "ts >= TIMESTAMPTZ '2026-08-09 00:00:00' AND ts < TIMESTAMPTZ '2026-08-10 00:00:00'",
    );
    expect(now).toContain("DATE '");
    const trunc = rejected("SELECT date_trunc('month', ts) FROM ledger_entries", 'function_not_allowed').hint;
    expect(trunc).toContain(
      "ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00'",
    );
    expect(trunc).not.toContain("DATE '");
    rejected("SELECT set_config('role', 'postgres', false)", 'function_not_allowed');
    rejected('SELECT pg_sleep(10)', 'function_not_allowed');
    rejected("SELECT upper('x')", 'function_not_allowed');
  });

  it('rejects function-like syntax the parser does not represent as a call', () => {
    expect(
      rejectedAt(
        'SELECT 1 FROM ledger_entries WHERE ts < CURRENT_DATE',
        'function_not_allowed',
        'CURRENT_DATE',
      ).hint,
    ).toContain("DATE '");
    rejected('SELECT CURRENT_USER', 'function_not_allowed');
    rejected('SELECT SESSION_USER', 'function_not_allowed');
    rejected('SELECT CURRENT_TIMESTAMP', 'function_not_allowed');
    rejected('SELECT LOCALTIMESTAMP(3)', 'function_not_allowed');
    rejectedAt('SELECT GREATEST(1, 2)', 'function_not_allowed', 'GREATEST');
    rejected('SELECT LEAST(1, 2)', 'function_not_allowed');
    rejected('SELECT NULLIF(amount, 0) FROM ledger_entries', 'function_not_allowed');
    rejectedAt('SELECT EXTRACT(YEAR FROM ts) FROM ledger_entries', 'function_not_allowed', 'EXTRACT');
    rejected("SELECT SUBSTRING('abc' FROM 1 FOR 2)", 'function_not_allowed');
    rejected("SELECT XMLELEMENT(NAME a, 'x')", 'function_not_allowed');
    rejected("SELECT JSON_OBJECT('a' VALUE 1)", 'function_not_allowed');
    rejected("SELECT JSON_VALUE('{}', '$.a')", 'function_not_allowed');
    rejected("SELECT 'x' IS JSON", 'function_not_allowed');
    rejected('SELECT GROUPING(category) FROM ledger_entries GROUP BY category', 'function_not_allowed');
  });

  it('rejects qualified names, functions in FROM, window functions and field-notation calls', () => {
    expect(
      rejected('SELECT pg_catalog.sum(amount) FROM ledger_entries', 'function_not_allowed').hint,
    ).toContain('without the schema');
    rejected('SELECT * FROM generate_series(1, 10)', 'function_not_allowed');
    rejected('SELECT * FROM ledger_entries, LATERAL unnest(ARRAY[1]) u', 'function_not_allowed');
    rejected('SELECT sum(amount) OVER () FROM ledger_entries', 'construct_not_allowed');
    rejected('SELECT sum(amount) OVER w FROM ledger_entries WINDOW w AS ()', 'construct_not_allowed');
    rejected('SELECT l.to_json FROM ledger_entries l', 'column_not_allowed');
    rejected(
      'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) FROM ledger_entries',
      'function_not_allowed',
    );
    rejected('SELECT count(VARIADIC ARRAY[1])', 'construct_not_allowed');
    rejected('SELECT count(a => 1)', 'construct_not_allowed');
  });
});
