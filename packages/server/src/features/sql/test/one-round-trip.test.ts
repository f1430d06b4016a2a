// The SQL endpoints decide the workspace from a lookup that travels with the statement: the answers must be
// exactly those of resolving first (404, the only workspace, missing_workspace), and nothing runs before.

import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, ENGINES, type Live, startLive } from './setup.js';

describe.each(ENGINES)('one round trip on $name', (engine) => {
  let live: Live;
  beforeAll(async () => {
    live = await startLive(engine);
  });
  afterAll(async () => live?.close());

  const query = (key: string, sql: string, workspace?: string) =>
    live.request('POST', routePath(API_ROUTES.sqlQuery), {
      key,
      body: { sql },
      ...(workspace ? { headers: { 'x-workspace-id': workspace } } : {}),
    });

  it('answers 404 for a foreign workspace before the statement could fail', async () => {
    const user = await createUser(live.db);
    const own = await addWorkspace(live.db, user.userId);
    const other = await createUser(live.db);
    const foreign = await addWorkspace(live.db, other.userId);
    // Run, this statement fails with division_by_zero whatever the workspace.
    const failing = 'SELECT 1/0 AS x';
    const refused = await query(user.apiKey, failing, foreign);
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('workspace_not_found');
    const ran = await query(user.apiKey, failing, own);
    expect(ran.status).toBe(400);
    expect(ran.body.error).toMatchObject({ code: 'sql_execution_failed', details: { sqlstate: '22012' } });
  });

  it('follows a membership change of the saved workspace at once', async () => {
    const user = await createUser(live.db);
    const [w1, w2, w3] = [
      await addWorkspace(live.db, user.userId, 'One'),
      await addWorkspace(live.db, user.userId, 'Two'),
      await addWorkspace(live.db, user.userId, 'Three'),
    ];
    expect(
      (
        await live.request('POST', routePath(API_ROUTES.selectWorkspace, { workspaceId: w1 }), {
          key: user.apiKey,
        })
      ).status,
    ).toBe(200);
    expect((await query(user.apiKey, 'SELECT 1 AS x')).body.data.workspaceId).toBe(w1);

    const leave = (workspaceId: string) =>
      live.db.query(
        'DELETE FROM expense_internal.workspace_members WHERE workspace_id = $1 AND user_id = $2',
        [workspaceId, user.userId],
      );
    await leave(w1);
    const ask = await query(user.apiKey, 'SELECT 1 AS x');
    expect(ask.status).toBe(400);
    expect(ask.body.error.code).toBe('missing_workspace');
    expect(
      ask.body.error.details.workspaces.map((w: { workspaceId: string }) => w.workspaceId).sort(),
    ).toEqual([w2, w3].sort());

    await leave(w3);
    const only = await query(user.apiKey, 'SELECT 1 AS x');
    expect(only.status).toBe(200);
    expect(only.body.data.workspaceId).toBe(w2);
    const saved = await live.db.query<{ selected_workspace_id: string }>(
      'SELECT selected_workspace_id FROM expense_internal.api_keys WHERE connection_id = $1',
      [user.connectionId],
    );
    expect(saved.rows[0]?.selected_workspace_id).toBe(w2);
    // The header still overrides, and a workspace left is not found.
    expect((await query(user.apiKey, 'SELECT 1 AS x', w1)).status).toBe(404);
  });

  it('judges the same text again in each mode', async () => {
    const user = await createUser(live.db);
    await addWorkspace(live.db, user.userId);
    const sql = 'SELECT 2 AS x';
    for (let i = 0; i < 2; i++) {
      expect((await query(user.apiKey, sql)).body.data.statements[0].rows).toEqual([{ x: 2 }]);
      const execute = await live.request('POST', routePath(API_ROUTES.sqlExecute), {
        key: user.apiKey,
        body: { sql },
      });
      expect(execute.status).toBe(400);
      expect(execute.body.error.code).toBe('statement_kind_mismatch');
    }
  });
});
