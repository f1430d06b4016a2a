// Sets up users, workspaces, keys and rows directly in the database with the server's own functions (the
// same code the sign-in and workspace routes run). Sign-in over HTTP allows 30 codes per client address per
// hour, which is far too few for a load test with many keys; everything measured afterwards goes over HTTP.
import { createApiKey } from '../../src/features/auth/api-keys.js';
import { createWorkspace, selectWorkspace } from '../../src/features/workspaces/store.js';
import type { Database, Queryable } from '../../src/platform/storage/index.js';
import { openDatabase } from '../../src/platform/storage/index.js';

export interface SeededKey {
  email: string;
  userId: string;
  apiKey: string;
  connectionId: string;
  /** The workspaces this user owns; the key's saved workspace is the first. */
  workspaceIds: string[];
}

export interface SeedPlan {
  users: number;
  workspacesPerUser?: number;
  keysPerUser?: number;
  /** Ledger rows per workspace. */
  rowsPerWorkspace?: number;
  /** Makes e-mail addresses unique across runs against one database. */
  tag?: string;
}

export async function openForSeeding(target: { databaseUrl?: string; dataDir?: string }): Promise<Database> {
  return openDatabase({ ...target, maxConnections: 2 });
}

export async function createUser(db: Queryable, email: string): Promise<string> {
  const { rows } = await db.query<{ user_id: string }>(
    'INSERT INTO expense_internal.users (email) VALUES ($1) RETURNING user_id',
    [email],
  );
  return rows[0]!.user_id;
}

/** A new key for an existing user, saved on the given workspace. */
export async function addKey(db: Database, userId: string, workspaceId: string | undefined, label: string) {
  return db.transaction(async (tx) => {
    const key = await createApiKey(tx, userId, label);
    if (workspaceId) await selectWorkspace(tx, key.connectionId, workspaceId);
    return key;
  });
}

/** Inserts `count` ledger rows into a workspace; external ids `<prefix>-<n>`. */
export async function insertLedgerRows(
  db: Database,
  userId: string,
  workspaceId: string,
  count: number,
  prefix = 'seed',
): Promise<void> {
  if (count <= 0) return;
  await db.transaction(async (tx) => {
    await tx.query(
      `SELECT set_config('expense.user_id', $1, true), set_config('expense.workspace_id', $2, true)`,
      [userId, workspaceId],
    );
    await tx.query(
      `INSERT INTO public.ledger_entries (workspace_id, ts, account_id, amount, currency, kind, category, external_id)
       SELECT $1::uuid, timestamptz '2026-01-01T00:00:00Z' + i * interval '37 minutes', 'acct-' || (i % 3),
              ((i % 97) - 60)::numeric / 4, 'USD',
              CASE WHEN (i % 97) - 60 < 0 THEN 'spend' ELSE 'income' END, 'cat-' || (i % 7), $2 || '-' || i
       FROM generate_series(1, $3::int) AS i`,
      [workspaceId, prefix, count],
    );
  });
}

export async function seed(db: Database, plan: SeedPlan): Promise<SeededKey[]> {
  const tag = plan.tag ?? Math.random().toString(36).slice(2, 8);
  const keys: SeededKey[] = [];
  for (let u = 0; u < plan.users; u++) {
    const email = `proof-${tag}-${u}@example.com`;
    const userId = await db.transaction((tx) => createUser(tx, email));
    const workspaceIds: string[] = [];
    for (let w = 0; w < (plan.workspacesPerUser ?? 1); w++) {
      const ws = await db.transaction((tx) => createWorkspace(tx, userId, `proof ${u}.${w}`));
      workspaceIds.push(ws.workspaceId);
      await insertLedgerRows(db, userId, ws.workspaceId, plan.rowsPerWorkspace ?? 0);
    }
    for (let k = 0; k < (plan.keysPerUser ?? 1); k++) {
      const key = await addKey(db, userId, workspaceIds[0], `proof key ${k}`);
      keys.push({ email, userId, apiKey: key.apiKey, connectionId: key.connectionId, workspaceIds });
    }
  }
  return keys;
}
