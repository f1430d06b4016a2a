import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../database.js';
import { MigrationError } from '../errors.js';
import { loadMigrations, migrate } from '../migrate.js';
import { USER_RELATIONS } from '../names.js';
import { relationHints } from '../relation-hints.js';
import { describeRelations } from '../schema-catalog.js';
import { ENGINES, type EngineFixture } from './engines.js';

describe.each(ENGINES)('migrations and catalog on %s', (engine, makeFixture) => {
  let fixture: EngineFixture;
  let db: Database;
  const files = loadMigrations();

  beforeAll(async () => {
    fixture = await makeFixture();
  });
  afterAll(async () => {
    await db?.close();
    await fixture?.dispose();
  });

  it('applies every migration once even when two migrators start together, and records them', async () => {
    db = await fixture.open({ migrate: false });
    // On PostgreSQL the second migrator is another pool, as another process would be.
    const other = engine === 'postgres' ? await fixture.open({ migrate: false }) : db;
    try {
      const [first, second] = await Promise.all([migrate(db), migrate(other)]);
      const applied = [...first.applied, ...second.applied].map((m) => m.version).sort((a, b) => a - b);
      expect(applied).toEqual(files.map((m) => m.version));
      expect([...first.skipped, ...second.skipped].sort((a, b) => a - b)).toEqual(
        files.map((m) => m.version),
      );
    } finally {
      if (other !== db) await other.close();
    }
    const recorded = await db.query<{ version: number; name: string; checksum: string; applied_at: Date }>(
      'SELECT version, name, checksum, applied_at FROM expense_internal.schema_migrations ORDER BY version',
    );
    expect(recorded.rows.map(({ version, name, checksum }) => ({ version, name, checksum }))).toEqual(
      files.map(({ version, name, checksum }) => ({ version, name, checksum })),
    );
    expect(recorded.rows.every((row) => row.applied_at instanceof Date)).toBe(true);
  });

  it('is idempotent: a second run applies nothing', async () => {
    const again = await migrate(db);
    expect(again.applied).toEqual([]);
    expect(again.skipped).toEqual(files.map((m) => m.version));
  });

  it('refuses a migration that changed after it was applied, and a database newer than the code', async () => {
    const edited = files.map((m, i) => (i === 0 ? { ...m, checksum: '0'.repeat(64) } : m));
    await expect(migrate(db, { migrations: edited })).rejects.toMatchObject({
      code: 'migration_checksum_mismatch',
      version: 1,
    });
    await expect(migrate(db, { migrations: files.slice(0, -1) })).rejects.toBeInstanceOf(MigrationError);
  });

  it('rolls back a failing migration entirely and records nothing', async () => {
    const broken = [
      ...files,
      {
        version: 9999,
        name: 'broken',
        checksum: 'x',
        sql: 'CREATE TABLE public.half_done (a int); SELECT 1/0',
      },
    ];
    await expect(migrate(db, { migrations: broken })).rejects.toMatchObject({
      code: 'migration_failed',
      version: 9999,
    });
    const left = await db.query("SELECT 1 FROM pg_catalog.pg_class WHERE relname = 'half_done'");
    expect(left.rows).toEqual([]);
    const recorded = await db.query('SELECT 1 FROM expense_internal.schema_migrations WHERE version = 9999');
    expect(recorded.rows).toEqual([]);
  });

  it('describes the seven relations from the live catalog', async () => {
    const relations = await describeRelations(db, relationHints(730));
    expect(relations.map((r) => r.name)).toEqual([...USER_RELATIONS]);
    const byName = Object.fromEntries(relations.map((r) => [r.name, r]));
    expect(byName.ledger_entries).toMatchObject({
      kind: 'table',
      scope: 'workspace',
      operations: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
    });
    expect(byName.accounts).toMatchObject({ kind: 'view', scope: 'workspace', operations: ['SELECT'] });
    expect(byName.fx_rates_daily).toMatchObject({ kind: 'table', scope: 'global', operations: ['SELECT'] });
    const ledgerColumns = byName.ledger_entries?.columns.map((c) => c.name);
    expect(ledgerColumns).toEqual([
      'entry_id',
      'workspace_id',
      'event_id',
      'ts',
      'account_id',
      'amount',
      'currency',
      'kind',
      'category',
      'counterparty',
      'note',
      'external_id',
      'inserted_at',
      'updated_at',
    ]);
    const column = (relation: string, name: string) =>
      relations.find((r) => r.name === relation)?.columns.find((c) => c.name === name);
    expect(column('ledger_entries', 'ts')).toEqual({
      name: 'ts',
      type: 'timestamp with time zone',
      nullable: false,
      default: null,
    });
    expect(column('ledger_entries', 'workspace_id')?.default).toBe("the request's workspace");
    expect(column('ledger_entries', 'entry_id')?.default).toBe('gen_random_uuid()');
    expect(column('workspace_settings', 'reporting_currency')?.default).toBe("'USD'");
    expect(column('budget_lines', 'note')?.nullable).toBe(true);
    expect(byName.accounts?.columns.map((c) => c.name)).toEqual([
      'account_id',
      'currency',
      'balance',
      'entry_count',
      'first_ts',
      'last_ts',
      'display_name',
      'account_type',
      'liquidity',
      'is_archived',
      'note',
    ]);
    for (const relation of relations) expect(relation.hints.length, relation.name).toBeGreaterThan(0);
    expect(byName.ledger_entries?.hints.join(' ')).toMatch(/event_id/);
  });

  it('keeps the data across a restart', async () => {
    await db.query("INSERT INTO expense_internal.users (email) VALUES ('restart@example.test')");
    await db.close();
    db = await fixture.open();
    const found = await db.query(
      "SELECT count(*) AS n FROM expense_internal.users WHERE email = 'restart@example.test'",
    );
    expect(found.rows).toEqual([{ n: '1' }]);
  });
  it('leaves a value bound NOT VALID where existing rows break it (0046), and the database starts', async () => {
    const other = await makeFixture();
    const fresh = await other.open({ migrate: false });
    try {
      await migrate(fresh, { migrations: files.filter((m) => m.version < 46) });
      await fresh.query(
        "INSERT INTO expense_internal.workspaces (workspace_id, name) VALUES ('00000000-0000-4000-8000-00000000a046', 'w')",
      );
      await fresh.query(
        `INSERT INTO public.ledger_entries (workspace_id, ts, account_id, amount, currency, kind)
         VALUES ('00000000-0000-4000-8000-00000000a046', now(), 'bank', 1e20, 'EUR', 'spend')`,
      );
      const result = await migrate(fresh);
      expect(result.applied.map((m) => m.version)).toContain(46);
      const constraints = await fresh.query<{ conname: string; convalidated: boolean }>(
        `SELECT conname, convalidated FROM pg_catalog.pg_constraint
         WHERE conname LIKE '%\\_length' OR conname LIKE '%\\_bound' ORDER BY conname`,
      );
      expect(constraints.rows).toEqual([
        { conname: 'budget_lines_currency_length', convalidated: true },
        { conname: 'budget_lines_planned_value_bound', convalidated: true },
        { conname: 'fx_rates_daily_currency_length', convalidated: true },
        { conname: 'fx_rates_raw_currency_length', convalidated: true },
        { conname: 'ledger_entries_amount_bound', convalidated: false },
        { conname: 'ledger_entries_currency_length', convalidated: true },
        { conname: 'workspace_settings_currency_length', convalidated: true },
      ]);
      // New rows are checked all the same.
      await expect(
        fresh.query(
          `INSERT INTO public.ledger_entries (workspace_id, ts, account_id, amount, currency, kind)
           VALUES ('00000000-0000-4000-8000-00000000a046', now(), 'bank', 1e15, 'EUR', 'spend')`,
        ),
      ).rejects.toMatchObject({ code: '23514' });
    } finally {
      await fresh.close();
      await other.dispose();
    }
  });
});
