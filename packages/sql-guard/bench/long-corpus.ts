import type { Mode } from '../src/types.js';

const CHECKING = 'chase-checking';
const day = (i: number) => `2026-08-${String((i % 28) + 1).padStart(2, '0')}`;
const months = Array.from({ length: 24 }, (_, i) => {
  const y = 2025 + Math.floor(i / 12);
  const m = (i % 12) + 1;
  const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
  return [`${y}-${String(m).padStart(2, '0')}-01`, next] as const;
});

/**
 * Texts over 2,000 characters (the length from which the guard pre-scans for depth, lexical.ts SHORT_INPUT):
 * the shapes an agent or the CLI sends long, an import batch, a multi-month report, a script of corrections.
 */
export const longCorpus: { sql: string; mode: Mode }[] = [
  {
    mode: 'execute',
    sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note, external_id) VALUES ${Array.from(
      { length: 60 },
      (_, i) =>
        `(TIMESTAMPTZ '${day(i)} 12:00:00+00', '${CHECKING}', ${-(i + 1)}.99, 'EUR', 'spend', 'groceries', 'batch row ${i} at "Joe''s" -- paid $${i}', 'csv:${i}')`,
    ).join(', ')} RETURNING entry_id`,
  },
  {
    mode: 'execute',
    sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, external_id) SELECT v.ts::timestamptz, v.account_id, v.amount::numeric, v.currency, v.kind, v.external_id FROM (VALUES ${Array.from(
      { length: 40 },
      (_, i) => `('${day(i)}', '${CHECKING}', '-${i}.20', 'EUR', 'spend', 'csv:${i}')`,
    ).join(
      ', ',
    )}) AS v (ts, account_id, amount, currency, kind, external_id) WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.external_id = v.external_id)`,
  },
  {
    mode: 'query',
    sql: `WITH cur AS (SELECT coalesce((SELECT s.reporting_currency FROM workspace_settings s), 'USD') AS code) SELECT m.month_start::date AS month, c.code AS currency, coalesce(sum(CASE WHEN e.kind = 'income' THEN CASE WHEN e.currency = c.code THEN e.amount ELSE e.amount * r.rate END END), 0) AS income, 0 - coalesce(sum(CASE WHEN e.kind = 'spend' THEN CASE WHEN e.currency = c.code THEN e.amount ELSE e.amount * r.rate END END), 0) AS spent FROM cur c JOIN (VALUES ${months
      .map(([a, b]) => `(TIMESTAMPTZ '${a} 00:00:00', TIMESTAMPTZ '${b} 00:00:00')`)
      .join(
        ', ',
      )}) AS m (month_start, month_end) ON true LEFT JOIN ledger_entries e ON e.ts >= m.month_start AND e.ts < m.month_end AND e.kind <> 'transfer' LEFT JOIN fx_rates_daily r ON r.base_currency = e.currency AND r.quote_currency = c.code AND r.calendar_date = e.ts::date GROUP BY m.month_start, c.code ORDER BY m.month_start`,
  },
  {
    mode: 'script',
    sql: Array.from(
      { length: 25 },
      (_, i) =>
        `UPDATE ledger_entries SET category = 'food', note = 'recategorised ${i}' WHERE external_id = 'seed-${i}'`,
    ).join(';\n'),
  },
  {
    mode: 'query',
    sql: `SELECT entry_id, ts, amount, category FROM ledger_entries WHERE category IN (${Array.from(
      { length: 150 },
      (_, i) => `'category-${i}'`,
    ).join(', ')}) AND ts >= TIMESTAMPTZ '2026-01-01 00:00:00' ORDER BY ts DESC LIMIT 50`,
  },
];
