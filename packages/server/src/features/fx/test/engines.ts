// The storage layer's real engines for the FX tests (@expense/test-kit's: PGlite in memory, a fresh PostgreSQL
// database, each a copy of the run's migrated template), plus a way to run statements as the SQL role the way
// user SQL runs.
import { randomUUID } from 'node:crypto';
import type { SqlSession } from '@expense/sql-guard';
import { type EngineSpec, ENGINES as KIT_ENGINES, PGLITE } from '@expense/test-kit';
import type { Database } from '../../../platform/storage/database.js';
import { openDatabase } from '../../../platform/storage/open.js';

export interface TestDatabase {
  db: Database;
  /** Runs fn in a user transaction (the SQL role), always rolled back. */
  asSqlRole<T>(fn: (session: SqlSession) => Promise<T>, workspaceId?: string): Promise<T>;
  dispose(): Promise<void>;
}

async function open(engine: EngineSpec): Promise<TestDatabase> {
  const target = await engine.open();
  const db = await openDatabase({ databaseUrl: target.url, maxConnections: 4 }).catch(async (error) => {
    await target.drop();
    throw error;
  });
  return {
    db,
    asSqlRole: (fn, workspaceId = randomUUID()) =>
      db.userTransaction({ userId: randomUUID(), workspaceId, readOnly: false }, fn, { rollback: true }),
    async dispose() {
      await db.close();
      await target.drop();
    },
  };
}

export const ENGINES = KIT_ENGINES.map((engine) => [engine.kind, () => open(engine)] as const);
export const openPglite = () => open(PGLITE);
