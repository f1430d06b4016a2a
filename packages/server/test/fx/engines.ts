// The storage layer's real engines (PGlite in a temporary directory, a fresh PostgreSQL database), migrated,
// plus a way to run statements as the SQL role the way user SQL runs.
import { randomUUID } from 'node:crypto';
import type { SqlSession } from '@expense/sql-guard';
import type { Database } from '../../src/storage/database.js';
import { pgliteFixture, ENGINES as STORAGE_ENGINES } from '../storage/engines.js';

export interface TestDatabase {
  db: Database;
  /** Runs fn in a user transaction (the SQL role), always rolled back. */
  asSqlRole<T>(fn: (session: SqlSession) => Promise<T>, workspaceId?: string): Promise<T>;
  dispose(): Promise<void>;
}

async function open(fixture: (typeof STORAGE_ENGINES)[number][1]): Promise<TestDatabase> {
  const engine = await fixture();
  const db = await engine.open();
  return {
    db,
    asSqlRole: (fn, workspaceId = randomUUID()) =>
      db.userTransaction({ userId: randomUUID(), workspaceId, readOnly: false }, fn, { rollback: true }),
    async dispose() {
      await db.close();
      await engine.dispose();
    },
  };
}

export const ENGINES = STORAGE_ENGINES.map(([name, fixture]) => [name, () => open(fixture)] as const);
export const openPglite = () => open(pgliteFixture);
