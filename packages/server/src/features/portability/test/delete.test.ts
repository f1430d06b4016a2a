// Issue 40, item 3: DELETE /v1/workspaces/{id} {confirmName} (owners) and DELETE /v1/me {confirmEmail} delete for
// good, and nothing of them is left: every table of the database, read from the catalog (not a hand list), is
// searched for the user's id and e-mail and the workspace's id afterwards; on both engines. A workspace whose row
// a user's write holds is refused at once with a coded retryable answer (PostgreSQL), never waited for.
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';

/** Rows of any table (every schema but the system's) whose text holds one of the needles. */
async function traces(live: Live, needles: string[]): Promise<string[]> {
  const { rows: tables } = await live.db.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
     FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
       AND n.nspname NOT LIKE 'pg_temp%'`,
  );
  expect(tables.length).toBeGreaterThan(20);
  const found: string[] = [];
  for (const { name } of tables) {
    const { rows } = await live.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${name} t WHERE t::text ILIKE ANY ($1::text[])`,
      [needles.map((s) => `%${s}%`)],
    );
    if (rows[0]!.n > 0) found.push(`${name}: ${rows[0]!.n}`);
  }
  return found;
}

const sql = (live: Live, user: TestUser, workspaceId: string, text: string) =>
  call(live, API_ROUTES.sqlExecute, {
    key: user.apiKey,
    headers: { 'x-workspace-id': workspaceId },
    body: { sql: text },
  });

describe.each(ENGINES)('deleting on $name', (engine) => {
  let live: Live;
  let ana: TestUser;
  let bo: TestUser;

  beforeAll(async () => {
    live = await startLive(engine);
    ana = await createUser(live.db);
    bo = await createUser(live.db);
  });
  afterAll(async () => live?.close());

  it('deletes a workspace with its data and history after its name is typed, and leaves no trace', async () => {
    const ws = await addWorkspace(live.db, ana.userId, 'Holiday');
    expect(
      (
        await sql(
          live,
          ana,
          ws,
          "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES (DATE '2026-01-01', 'spend', 'food', 'EUR', 10)",
        )
      ).status,
    ).toBe(200);
    await call(live, API_ROUTES.addMember, {
      params: { workspaceId: ws },
      key: ana.apiKey,
      body: { email: bo.email },
    });
    await call(live, API_ROUTES.acceptInvitation, { params: { workspaceId: ws }, key: bo.apiKey });
    await call(live, API_ROUTES.selectWorkspace, { params: { workspaceId: ws }, key: bo.apiKey });

    // Sent as given, outside the route's body schema (call takes only bodies the schema allows).
    const del = (key: string, confirmName: unknown) =>
      live.request(
        API_ROUTES.deleteWorkspace.method,
        routePath(API_ROUTES.deleteWorkspace, { workspaceId: ws }),
        {
          key,
          body: { confirmName },
        },
      );
    const wrong = await del(ana.apiKey, 'holiday');
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'confirmation_mismatch']);
    expect(wrong.body.error.hint).toMatch(/confirmName/);
    const byMember = await del(bo.apiKey, 'Holiday');
    expect([byMember.status, byMember.body.error.code]).toEqual([403, 'forbidden']);
    expect((await traces(live, [ws])).length).toBeGreaterThan(5);
    const done = await del(ana.apiKey, 'Holiday');
    expect(done.status, done.text).toBe(204);
    expect(await traces(live, [ws])).toEqual([]);
    const again = await del(ana.apiKey, 'Holiday');
    expect([again.status, again.body.error.code]).toEqual([404, 'workspace_not_found']);
    // The member's key still works, without the workspace.
    const list = await call(live, API_ROUTES.workspaces, { key: bo.apiKey });
    expect(list.body.data.workspaces).toEqual([]);
  });

  it('deletes an account after its address is typed: keys, invitations, grants, sole-owned workspaces', async () => {
    const gone = await createUser(live.db);
    const second = await createUser(live.db);
    const own = await addWorkspace(live.db, gone.userId, 'Mine');
    const shared = await addWorkspace(live.db, gone.userId, 'Shared');
    const theirs = await addWorkspace(live.db, second.userId, 'Theirs');
    await sql(live, gone, own, "UPDATE workspace_settings SET reporting_currency = 'EUR'");
    // Shared has a second owner and stays; gone is a member of theirs, and invited to another.
    await live.db.query(
      `INSERT INTO expense_internal.workspace_members (workspace_id, user_id, role) VALUES ($1, $2, 'owner'), ($3, $4, 'member')`,
      [shared, second.userId, theirs, gone.userId],
    );
    expect(
      (await sql(live, gone, shared, "INSERT INTO account_metadata (account_id) VALUES ('cash')")).status,
    ).toBe(200);
    expect(
      (await sql(live, gone, theirs, "INSERT INTO account_metadata (account_id) VALUES ('card')")).status,
    ).toBe(200);
    const other = await addWorkspace(live.db, second.userId, 'Other');
    await call(live, API_ROUTES.addMember, {
      params: { workspaceId: other },
      key: second.apiKey,
      body: { email: gone.email },
    });
    await call(live, API_ROUTES.addMember, {
      params: { workspaceId: own },
      key: gone.apiKey,
      body: { email: 'friend@example.test' },
    });
    await live.db.query(
      `INSERT INTO expense_internal.oauth_clients (client_id, client_name, redirect_uris) VALUES ('c-del', 'Agent', '[]');
       INSERT INTO expense_internal.otp_challenges (token_hash, email, code_hash, expires_at)
         VALUES (repeat('a', 64), '${gone.email.toUpperCase()}', 'x', now() + interval '1 hour')`,
    );
    await live.db.query(
      `INSERT INTO expense_internal.oauth_grants (client_id, user_id, resource, access, expires_at)
       VALUES ('c-del', $1, 'http://x/mcp', 'read', now() + interval '1 day')`,
      [gone.userId],
    );

    const del = (confirmEmail: string) =>
      call(live, API_ROUTES.deleteAccount, { key: gone.apiKey, body: { confirmEmail } });
    const wrong = await del(second.email);
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'confirmation_mismatch']);
    expect((await traces(live, [gone.userId, gone.email, own])).length).toBeGreaterThan(8);
    const done = await del(` ${gone.email.toUpperCase()} `);
    expect(done.status, done.text).toBe(204);

    expect(await traces(live, [gone.userId, gone.email, own])).toEqual([]);
    const after = await call(live, API_ROUTES.me, { key: gone.apiKey });
    expect(after.status).toBe(401);
    // The workspace with another owner stays, with its data and history (the author now unknown).
    const kept = await call(live, API_ROUTES.sqlQuery, {
      key: second.apiKey,
      headers: { 'x-workspace-id': shared },
      body: { sql: 'SELECT account_id FROM account_metadata' },
    });
    expect(kept.body.data.statements[0].rows).toEqual([{ account_id: 'cash' }]);
  });

  it.runIf(engine.name !== 'PGlite')(
    "refuses at once, retryable, while a user's write holds the workspace",
    async () => {
      const ws = await addWorkspace(live.db, bo.userId, 'Busy');
      const client = new pg.Client({ connectionString: live.databaseUrl });
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query(
          'SELECT 1 FROM expense_internal.workspaces WHERE workspace_id = $1 FOR KEY SHARE',
          [ws],
        );
        const started = Date.now();
        const res = await call(live, API_ROUTES.deleteWorkspace, {
          params: { workspaceId: ws },
          key: bo.apiKey,
          body: { confirmName: 'Busy' },
        });
        expect(Date.now() - started).toBeLessThan(2000);
        expect([res.status, res.body.error.code, res.body.error.retryable]).toEqual([
          429,
          'rate_limited',
          true,
        ]);
        expect(res.headers.get('retry-after')).toBe('1');
        await client.query('ROLLBACK');
        const done = await call(live, API_ROUTES.deleteWorkspace, {
          params: { workspaceId: ws },
          key: bo.apiKey,
          body: { confirmName: 'Busy' },
        });
        expect(done.status).toBe(204);
      } finally {
        await client.end();
      }
    },
  );
});
