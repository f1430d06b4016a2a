// The dialect the guard judges by, the grants the database gives the SQL role, and what /schema tells agents
// must be one description: a relation, column or operation in one and not the others is either a statement
// the guard accepts and the database refuses, or a hole the guard would have to cover alone.
import { expenseDialect } from '@expense/sql-guard';
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, ENGINES, type Live, startLive } from '../../sql/test/setup.js';

type Operation = 'select' | 'insert' | 'update' | 'delete';
type Description = Record<string, { operations: Operation[]; columns: string[] }>;

const sorted = (d: Description): Description =>
  Object.fromEntries(
    Object.entries(d)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, r]) => [name, { operations: [...r.operations].sort(), columns: [...r.columns].sort() }]),
  );

describe.each(ENGINES)('the dialect, the grants and /schema agree ($name)', (engine) => {
  let live: Live;
  let key: string;
  beforeAll(async () => {
    live = await startLive(engine);
    const user = await createUser(live.db);
    await addWorkspace(live.db, user.userId);
    key = user.apiKey;
  });
  afterAll(async () => {
    await live?.close();
  });

  const dialect = sorted(
    Object.fromEntries(
      Object.entries(expenseDialect.relations).map(([name, r]) => [
        name,
        { operations: r.operations as Operation[], columns: r.columns },
      ]),
    ),
  );

  it('grants the SQL role exactly the dialect: relations, operations and columns', async () => {
    expect(Object.keys(dialect)).toHaveLength(7);
    const tables = await live.db.query<{ name: string; privilege: string }>(
      `SELECT table_name AS name, lower(privilege_type) AS privilege
         FROM information_schema.role_table_grants
        WHERE grantee = 'expense_sql' AND privilege_type IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE')`,
    );
    const columns = await live.db.query<{ name: string; column: string }>(
      `SELECT c.table_name AS name, c.column_name AS column
         FROM information_schema.columns c
        WHERE c.table_schema = 'public'
          AND has_column_privilege('expense_sql', format('public.%I', c.table_name), c.column_name, 'SELECT')`,
    );
    const granted: Description = {};
    for (const { name, privilege } of tables.rows) {
      granted[name] ??= { operations: [], columns: [] };
      granted[name].operations.push(privilege as Operation);
    }
    for (const { name, column } of columns.rows) granted[name]?.columns.push(column);
    expect(sorted(granted)).toEqual(dialect);
  });

  it('describes the same relations, operations and columns on GET /v1/schema', async () => {
    const res = await call(live, API_ROUTES.schema, { key });
    expect(res.status).toBe(200);
    const reported: Description = {};
    for (const r of res.body.data.relations as {
      name: string;
      operations: string[];
      columns: { name: string }[];
    }[]) {
      reported[r.name] = {
        operations: r.operations.map((o) => o.toLowerCase() as Operation),
        columns: r.columns.map((c) => c.name),
      };
    }
    expect(sorted(reported)).toEqual(dialect);
  });
});
