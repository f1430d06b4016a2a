// The row trigger that names a duplicate external_id (migration 0016) looks the value up by the unique index on
// (workspace_id, external_id) however the connection's earlier executions went (migration 0044). The trigger's
// plan is cached per server session: here one connection runs the trigger while the workspace's table is nearly
// empty and never analysed (as a new workspace's first import does), then the workspace grows, and the lookup of
// one more row must read about one index entry, not the workspace's rows. Counted with the transaction's own
// statistics (pg_stat_get_xact_tuples_returned), so nothing here depends on timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../database.js';
import { ENGINES, type EngineFixture } from './engines.js';
import { type Seed, seedTwoWorkspaces } from './seed.js';

/** An external_id as the CLI derives it from a file's raw row: `csv:` and 40 hex digits. */
const externalId = (n: number) => `csv:${n.toString(16).padStart(40, '0')}`;

const GROWN_TO = 2_000;

describe.each(ENGINES)('trigger lookups on %s', (_engine, makeFixture) => {
  let fixture: EngineFixture;
  let db: Database;
  let seed: Seed;

  const inWorkspace = async (tx: Queryable) => {
    await tx.query(
      "SELECT set_config('expense.user_id', $1, true), set_config('expense.workspace_id', $2, true)",
      [seed.memberOfA, seed.workspaceA],
    );
  };

  beforeAll(async () => {
    fixture = await makeFixture();
    // One connection: the trigger's cached plan is the connection's.
    db = await fixture.open({ maxConnections: 1 });
    seed = await seedTwoWorkspaces(db);
  });
  afterAll(async () => {
    await db?.close();
    await fixture?.dispose();
  });

  it('finds a duplicate external_id by its index after the workspace grew', async () => {
    // Ten statements of a few rows while the table is small: past the five executions after which PL/pgSQL
    // may keep a generic plan.
    for (let batch = 0; batch < 10; batch++) {
      await db.transaction(async (tx) => {
        await inWorkspace(tx);
        await tx.query(
          `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, external_id)
           SELECT '2026-02-01T12:00:00Z', 'checking', g, 'USD', 'income', $1 || lpad(to_hex(g), 40, '0')
           FROM generate_series($2::int, $3::int) AS g`,
          ['csv:', batch * 5 + 1, batch * 5 + 5],
        );
      });
    }
    // The workspace grows (these rows carry no external_id: the trigger does not run for them).
    await db.transaction(async (tx) => {
      await inWorkspace(tx);
      await tx.query(
        `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind)
         SELECT '2026-02-02T12:00:00Z', 'checking', g, 'USD', 'income' FROM generate_series(1, $1::int) AS g`,
        [GROWN_TO],
      );
    });

    const read = await db.transaction(async (tx) => {
      await inWorkspace(tx);
      // Counted before and after in the same transaction: the counters may also hold earlier transactions'
      // counts not yet flushed (PostgreSQL 15 and later).
      const counters = async () => {
        const { rows } = await tx.query<{ table_rows: string; index_entries: string }>(
          `SELECT pg_stat_get_xact_tuples_returned('public.ledger_entries'::regclass) AS table_rows,
                  (SELECT sum(pg_stat_get_xact_tuples_returned(i.indexrelid)) FROM pg_index AS i
                   WHERE i.indrelid = 'public.ledger_entries'::regclass) AS index_entries`,
        );
        return { tableRows: Number(rows[0]?.table_rows), indexEntries: Number(rows[0]?.index_entries) };
      };
      const before = await counters();
      await tx.query(
        `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, external_id)
         VALUES ('2026-02-03T12:00:00Z', 'checking', 1, 'USD', 'income', $1)`,
        [externalId(10_000)],
      );
      const after = await counters();
      return {
        tableRows: after.tableRows - before.tableRows,
        indexEntries: after.indexEntries - before.indexEntries,
      };
    });
    // One probe of the unique index (and its own insertion check); before migration 0044 the cached plan
    // walked (workspace_id, account_id, ts) and returned every one of the workspace's 2,050 entries.
    expect(read.tableRows).toBeLessThan(10);
    expect(read.indexEntries).toBeLessThan(10);

    // And the trigger still names the value when it is there.
    await expect(
      db.transaction(async (tx) => {
        await inWorkspace(tx);
        await tx.query(
          `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, external_id)
           VALUES ('2026-02-03T12:00:00Z', 'checking', 1, 'USD', 'income', $1)`,
          [externalId(7)],
        );
      }),
    ).rejects.toThrow(`external_id '${externalId(7)}' already exists in this workspace`);
  });
});
