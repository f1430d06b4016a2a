import { createGuard } from '@expense/sql-guard';
import { ENGINES, type EngineSpec, engineSelected } from '@expense/test-kit';
import { describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { openDatabase } from '../../../platform/storage/index.js';
import { serverDialect } from '../dialect.js';
import { runGuarded } from '../pipeline.js';
import { startWithWorkspace } from './setup.js';

/**
 * The server verifies at start that its dialect's relations and columns (names and order) and the SQL role's
 * operations equal the database's, and refuses to start otherwise (issue 21: `*` expanded in the dialect's order;
 * issue 25: a dialect column the table lacks lets `t.col` through as a function call).
 */
async function startOn(engine: EngineSpec, change: string | undefined): Promise<unknown> {
  const target = await engine.open();
  const db = await openDatabase({ databaseUrl: target.url });
  try {
    if (change) await db.query(change);
    const app = await createServer({ logLevel: 'silent' }, { database: db });
    await app.close();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await db.close();
    await target.drop();
  }
}

// A PGlite start migrates for a minute under load: PGlite proves the refusal; every other suite proves the start.
describe.each(ENGINES)('the server and its dialect on $name', (engine) => {
  it('refuses to start when a column was added to a user relation', async () => {
    const error = await startOn(engine, 'ALTER TABLE public.ledger_entries ADD COLUMN to_json text');
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^The database's user relations differ from the SQL dialect/);
    expect((error as Error).message).toContain('ledger_entries.to_json');
  }, 180_000);
});

describe.runIf(engineSelected('postgres'))('the server and its dialect on PostgreSQL', () => {
  const postgres = ENGINES.find((e) => e.name === 'PostgreSQL') as EngineSpec;

  it('starts on the migrated database', async () => {
    expect(await startOn(postgres, undefined)).toBeUndefined();
  }, 120_000);

  it('refuses to start when the columns of a relation are in another order', async () => {
    const error = await startOn(
      postgres,
      'ALTER TABLE public.budget_lines DROP COLUMN note; ALTER TABLE public.budget_lines ADD COLUMN note text',
    );
    expect((error as Error).message).toContain(
      "the table's order is line_id, workspace_id, budget_month, direction, category, currency, planned_value, inserted_at, updated_at, note",
    );
  }, 120_000);

  it("refuses to start when a workspace table's row-level security was turned off", async () => {
    const error = await startOn(postgres, 'ALTER TABLE public.budget_lines DISABLE ROW LEVEL SECURITY');
    expect((error as Error).message).toMatch(/^The database's user relations differ from the SQL dialect/);
    expect((error as Error).message).toContain(
      'public.budget_lines carries workspace_id but has no row-level security',
    );
  }, 120_000);
});

describe.runIf(engineSelected('postgres'))(
  'the SQL path verifies once per connection, not per request (PostgreSQL)',
  () => {
    it('reads the catalog for the dialect at most once over five requests on one connection', async () => {
      const postgres = ENGINES.find((e) => e.name === 'PostgreSQL') as EngineSpec;
      const { live, user, workspaceId } = await startWithWorkspace(postgres);
      try {
        const guard = await createGuard({ dialect: serverDialect });
        const reads: string[] = [];
        for (let i = 0; i < 5; i++) {
          await runGuarded(
            live.db,
            guard,
            { userId: user.userId, workspaceId, readOnly: true },
            {
              mode: 'query',
              sql: 'SELECT count(*) AS n FROM ledger_entries',
              dryRun: false,
              observe: (session) => ({
                ...session,
                query: (text: string) => {
                  if (text.includes('pg_catalog.pg_attribute')) reads.push(text);
                  return session.query(text);
                },
              }),
            },
            async (run) => run,
          );
        }
        // pg's pool hands the most recently released connection back: one connection, one verification.
        expect(reads.length).toBe(1);
      } finally {
        await live.close();
      }
    }, 120_000);
  },
);
