/**
 * The lean path on the server's own database: the column widths of the expense dialect's relations derived from
 * the database the server's migrations build (the run's migrated templates, see test-kit's templates.ts), on
 * PGlite and PostgreSQL. For each relation, the read of its bounded columns with the row cap provably fits the
 * default budget and runs without the wrapper, and what it answers stays within the bound; every read that names
 * a column without a bound keeps the wrapper. The text and numeric columns take their bounds from the relations'
 * CHECK constraints (migrations 0002, 0003 and 0046), so the benchmark's read runs lean, with the measured
 * path's answer.
 */
import { PGlite } from '@electric-sql/pglite';
import {
  copyMigratedPglite,
  engineSelected,
  type FreshPostgres,
  freshPostgres,
  PGLITE_TEMPLATE_ENV,
  postgresTemplate,
  removeDir,
  tempDir,
} from '@expense/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgSession } from '../../src/adapters/pg.js';
import { pgliteSession } from '../../src/adapters/pglite.js';
import { rawParsers } from '../../src/adapters/pglite-protocol.js';
import { expenseDialect } from '../../src/dialect/expense.js';
import { createGuard } from '../../src/guard.js';
import { defaultLimits } from '../../src/limits.js';
import { type ColumnWidths, readColumnWidths } from '../../src/run/column-widths.js';
import { LEAN_BUDGET_SHARE, resultBound, runsLean } from '../../src/run/lean.js';
import { shapeOf } from '../../src/run/statement-shape.js';
import { rowCheckColumn } from '../../src/run/wrapper-sql.js';
import type { Guard, SqlSession } from '../../src/types.js';
import { recording } from './helpers.js';

/**
 * What the serializer's JSON of each column type of the migrations can take, by the catalog's name for the type
 * (format_type). A type the migrations start to use that is not here fails the test: decide its bound first.
 */
const expected: Record<string, number | null> = {
  uuid: 38,
  'timestamp with time zone': 40,
  date: 16,
  boolean: 5,
  smallint: 6,
  integer: 11,
  bigint: 22,
  text: null,
  numeric: null,
};

/**
 * The columns the relations' CHECK constraints bound (sql-guard run/check-bounds.ts), with their bounds: a text of
 * at most n characters is 2 + 6n bytes, a literal list its longest literal, an amount (below 10^15, its text at
 * most 32 characters, migration 0046) 34. Every other text or numeric column has none (the accounts view, the
 * exchange rates).
 */
const chars = (n: number) => 2 + 6 * n;
const checked: Record<string, Record<string, number>> = {
  ledger_entries: {
    event_id: chars(200),
    account_id: chars(200),
    amount: 34,
    currency: chars(3),
    kind: '"transfer"'.length,
    category: chars(200),
    counterparty: chars(500),
    note: chars(2000),
    external_id: chars(200),
  },
  budget_lines: {
    direction: '"income"'.length,
    category: chars(200),
    currency: chars(3),
    planned_value: 34,
    note: chars(2000),
  },
  workspace_settings: { reporting_currency: chars(3), timezone: chars(64) },
  account_metadata: {
    account_id: chars(200),
    display_name: chars(200),
    account_type: '"credit_card"'.length,
    liquidity: '"medium"'.length,
    note: chars(2000),
  },
  accounts: {},
  fx_rates_raw: { base_currency: chars(3), quote_currency: chars(3), source: chars(50) },
  fx_rates_daily: { base_currency: chars(3), quote_currency: chars(3) },
};

/** A database migrated by the server; `transaction` rolls back whatever fn did. */
interface Migrated {
  query(sql: string): Promise<Record<string, unknown>[]>;
  transaction<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function migratedPostgres(): Promise<Migrated> {
  const template = postgresTemplate();
  if (!template) throw new Error('no migrated PostgreSQL template: run through vitest (its global setup)');
  const database: FreshPostgres = await freshPostgres({ prefix: 'sql_guard_lean', template });
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on('error', () => {});
  return {
    query: async (sql) =>
      (await pool.query({ text: sql, types: { getTypeParser: () => (v: string) => v } })).rows,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        return await fn(pgSession(client, { cancelWith: pool }));
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
      }
    },
    async close() {
      try {
        await pool.end();
      } finally {
        await database.drop();
      }
    },
  };
}

async function migratedPglite(): Promise<Migrated> {
  if (!process.env[PGLITE_TEMPLATE_ENV]) {
    throw new Error('no migrated PGlite template: run through vitest (its global setup)');
  }
  const dataDir = await tempDir('sql-guard-lean-');
  await copyMigratedPglite(dataDir);
  const db = await PGlite.create({ dataDir });
  return {
    query: async (sql) =>
      (await db.query<Record<string, unknown>>(sql, [], { parsers: rawParsers(db) })).rows,
    transaction: (fn) =>
      db.transaction(async (tx) => {
        const value = await fn(pgliteSession(tx, db));
        await tx.rollback();
        return value;
      }),
    async close() {
      await db.close();
      await removeDir(dataDir);
    },
  };
}

const engines = [
  { name: 'PGlite', kind: 'pglite' as const, open: migratedPglite },
  { name: 'PostgreSQL', kind: 'postgres' as const, open: migratedPostgres },
].filter((engine) => engineSelected(engine.kind));

/** Rows at the widest values of the bounded columns: the latest and earliest instants and days. */
const extremes = `
INSERT INTO expense_internal.workspaces (workspace_id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'w');
INSERT INTO ledger_entries (entry_id, workspace_id, ts, account_id, amount, currency, kind, inserted_at, updated_at)
SELECT ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, '00000000-0000-4000-8000-000000000001',
       t, 'acc' || g, g, 'EUR', 'spend', t, t
FROM generate_series(1, 120) g,
     LATERAL (SELECT CASE g % 3 WHEN 0 THEN TIMESTAMPTZ '294276-12-31 23:59:59.999999+00'
                                WHEN 1 THEN TIMESTAMPTZ '4713-01-01 00:00:00.000001+00 BC'
                                ELSE TIMESTAMPTZ '2026-03-01 12:34:56.789012+00' END AS t) s;
INSERT INTO budget_lines (workspace_id, budget_month, direction, category, currency, planned_value)
SELECT '00000000-0000-4000-8000-000000000001',
       CASE g % 2 WHEN 0 THEN make_date(5874897 - g / 12, 12 - g % 12, 1) ELSE make_date(-4713 + g, 1, 1) END,
       'spend', 'c' || g, 'EUR', 1
FROM generate_series(1, 110) g;
INSERT INTO workspace_settings (workspace_id, first_day_of_week) VALUES ('00000000-0000-4000-8000-000000000001', 7);
`;

/** The relations `extremes` fills (directly, or through the accounts view). */
const seeded = ['ledger_entries', 'budget_lines', 'workspace_settings', 'accounts'];

const measured = (sent: string[]) => sent.join('\n').includes(rowCheckColumn);

describe.each(engines)("the lean path on the server's migrated database ($name)", ({ open }) => {
  let db: Migrated;
  let widths: ColumnWidths;
  let guard: Guard;
  const relations = Object.keys(expenseDialect.relations);

  beforeAll(async () => {
    db = await open();
    widths = await db.transaction((session) => readColumnWidths(session, relations));
    guard = await createGuard({ dialect: expenseDialect });
  }, 120_000);
  afterAll(() => db?.close());

  it('derives a width for every column of every relation of the dialect from the catalog', async () => {
    expect([...widths.keys()].sort()).toEqual([...relations].sort());
    const types = await db.query(
      `SELECT c.relname AS relation, a.attname AS column, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
       WHERE c.oid IN (${relations.map((r) => `'public.${r}'::regclass`).join(', ')})
         AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`,
    );
    expect(types.length).toBe(
      relations.reduce((n, r) => n + (expenseDialect.relations[r]?.columns.length ?? 0), 0),
    );
    for (const row of types) {
      const type = String(row.type);
      expect(Object.keys(expected), `${row.relation}.${row.column}: ${type}`).toContain(type);
      const bound = checked[String(row.relation)]?.[String(row.column)] ?? expected[type];
      expect(widths.get(String(row.relation))?.get(String(row.column)), `${row.relation}.${row.column}`).toBe(
        bound,
      );
    }
    // The dialect's columns, in its order (`*` expands so).
    for (const relation of relations) {
      expect([...(widths.get(relation)?.keys() ?? [])]).toEqual(expenseDialect.relations[relation]?.columns);
    }
  });

  for (const relation of Object.keys(expenseDialect.relations)) {
    it(`proves the bound of ${relation}'s bounded columns with the row cap, and reads them without the wrapper`, async () => {
      const columns = expenseDialect.relations[relation]?.columns ?? [];
      const bounded = columns.filter((c) => typeof widths.get(relation)?.get(c) === 'number');
      const unbounded = columns.filter((c) => !bounded.includes(c));
      expect(bounded.length).toBeGreaterThan(0);
      const cap = defaultLimits.maxReturnedRows;
      const sql = `SELECT ${bounded.join(', ')} FROM ${relation} LIMIT ${cap}`;
      const shape = shapeOf(sql);
      const bound = shape.output && resultBound(shape.output, widths, cap);
      expect(bound).toBeTypeOf('number');
      expect(bound as number).toBeLessThanOrEqual(defaultLimits.maxResultBytes * LEAN_BUDGET_SHARE);
      const lean = (text: string) =>
        runsLean(
          {
            output: shapeOf(text).output,
            limit: shapeOf(text).limit,
            maxReturnedRows: cap,
            remainingBytes: defaultLimits.maxResultBytes,
          },
          widths,
        );
      expect(lean(sql)).toBe(true);
      // `*` is lean where every column has a bound (and they fit), else never.
      expect(lean(`SELECT * FROM ${relation} LIMIT 1`)).toBe(unbounded.length === 0);
      for (const column of unbounded) {
        expect(lean(`SELECT ${bounded[0]}, ${column} FROM ${relation} LIMIT 1`), column).toBe(false);
      }

      const { result, sent } = await db.transaction(async (s) => {
        for (const statement of extremes.split(';\n').filter((t) => t.trim())) await s.query(statement);
        const { session, sent } = recording(s);
        return { result: await guard.run(session, sql, { mode: 'query' }), sent };
      });
      expect(measured(sent)).toBe(false);
      const rows = result.statements[0]?.rows ?? [];
      if (seeded.includes(relation)) expect(rows.length).toBeGreaterThan(0);
      const bytes = rows.reduce((n, row) => n + Buffer.byteLength(JSON.stringify(row)) + 1, 0);
      expect(bytes).toBeLessThanOrEqual(bound as number);
    });
  }

  for (const sql of [
    'SELECT entry_id, ts, account_id, amount, currency, kind, category FROM ledger_entries ORDER BY ts DESC LIMIT 20',
    'SELECT * FROM ledger_entries LIMIT 20',
  ]) {
    it(`runs the benchmark's read lean, with the measured path's answer: ${sql}`, async () => {
      const tight = await createGuard({
        dialect: expenseDialect,
        limits: { maxResultBytes: resultBound(shapeOf(sql).output!, widths, 20) as number },
      });
      const answer = async (g: Guard) =>
        db.transaction(async (s) => {
          for (const statement of extremes.split(';\n').filter((t) => t.trim())) await s.query(statement);
          const { session, sent } = recording(s);
          return { result: await g.run(session, sql, { mode: 'query' }), sent };
        });
      const lean = await answer(guard);
      const wrapped = await answer(tight);
      expect(measured(lean.sent)).toBe(false);
      expect(measured(wrapped.sent)).toBe(true);
      expect(lean.result.statements[0]?.rows).toHaveLength(20);
      expect(JSON.stringify(lean.result)).toBe(JSON.stringify(wrapped.result));
    });
  }
});
