import { randomUUID } from 'node:crypto';
import type { Database, UserContext } from '../database.js';

/** Two workspaces with rows in every workspace table, a member of each, and a user who belongs to neither. */
export interface Seed {
  memberOfA: string;
  memberOfB: string;
  outsider: string;
  workspaceA: string;
  workspaceB: string;
  /** ctx for memberOfA in workspaceA. */
  a(readOnly?: boolean): UserContext;
}

export async function seedTwoWorkspaces(db: Database): Promise<Seed> {
  const [memberOfA, memberOfB, outsider, workspaceA, workspaceB] = Array.from({ length: 5 }, () =>
    randomUUID(),
  ) as [string, string, string, string, string];
  await db.transaction(async (tx) => {
    await tx.query(
      'INSERT INTO expense_internal.users (user_id, email) VALUES ($1, $4), ($2, $5), ($3, $6)',
      [
        memberOfA,
        memberOfB,
        outsider,
        `a-${memberOfA}@example.test`,
        `b-${memberOfB}@example.test`,
        `c-${outsider}@example.test`,
      ],
    );
    await tx.query(
      "INSERT INTO expense_internal.workspaces (workspace_id, name) VALUES ($1, 'A'), ($2, 'B')",
      [workspaceA, workspaceB],
    );
    await tx.query(
      "INSERT INTO expense_internal.workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner'), ($3, $4, 'owner')",
      [workspaceA, memberOfA, workspaceB, memberOfB],
    );
    for (const [ws, tag, count] of [
      [workspaceA, 'a', 3],
      [workspaceB, 'b', 2],
    ] as const) {
      await tx.query('INSERT INTO workspace_settings (workspace_id) VALUES ($1)', [ws]);
      for (let i = 0; i < count; i++) {
        await tx.query(
          `INSERT INTO ledger_entries (workspace_id, ts, account_id, amount, currency, kind, category, external_id)
           VALUES ($1, $2, $3, $4, 'USD', 'spend', 'food', $5)`,
          [ws, `2026-03-0${i + 1}T12:00:00Z`, `${tag}-checking`, '-10.25', `${tag}-${i}`],
        );
      }
      await tx.query(
        `INSERT INTO budget_lines (workspace_id, budget_month, direction, category, currency, planned_value)
         VALUES ($1, '2026-03-01', 'spend', 'food', 'USD', 300)`,
        [ws],
      );
      await tx.query(
        "INSERT INTO account_metadata (workspace_id, account_id, display_name, account_type) VALUES ($1, $2, $3, 'checking')",
        [ws, `${tag}-checking`, `Checking ${tag}`],
      );
      await tx.query(
        "INSERT INTO account_metadata (workspace_id, account_id, account_type) VALUES ($1, $2, 'savings')",
        [ws, `${tag}-savings`],
      );
    }
  });
  return {
    memberOfA,
    memberOfB,
    outsider,
    workspaceA,
    workspaceB,
    a: (readOnly = false) => ({ userId: memberOfA, workspaceId: workspaceA, readOnly }),
  };
}

/** The SQLSTATE a rejected promise carries (pg and PGlite both expose `code`). */
export async function sqlState(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  throw new Error('expected the statement to fail');
}

/**
 * Lets the SQL role execute built-in functions that only a test's instrumentation calls inside a user
 * transaction (migration 0012 grants it none beyond the dialect's); in this test database only.
 */
export async function grantProbes(db: Database, functions: string[]): Promise<void> {
  for (const fn of functions) await db.query(`GRANT EXECUTE ON FUNCTION pg_catalog.${fn} TO expense_sql`);
}
