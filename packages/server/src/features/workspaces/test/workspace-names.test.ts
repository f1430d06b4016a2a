// Issue 41, item 4: a person's workspace names are unique, ignoring case, so that `expense use Home` names one:
// creating or renaming to a name one of their workspaces has is 409 workspace_name_taken, also when creations race;
// another person may use the same name.
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, ENGINES, type Live, startLive, type TestUser } from '../../sql/test/setup.js';

describe.each(ENGINES)('workspace names per person on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    live = await startLive(engine);
    user = await createUser(live.db);
  });
  afterAll(async () => live?.close());

  const create = (name: string, key = user.apiKey) =>
    call(live, API_ROUTES.createWorkspace, { key, body: { name } });
  const rename = (id: string, name: string) =>
    call(live, API_ROUTES.renameWorkspace, { params: { workspaceId: id }, key: user.apiKey, body: { name } });
  const names = async () =>
    (
      (await call(live, API_ROUTES.workspaces, { key: user.apiKey })).body.data.workspaces as {
        name: string;
      }[]
    )
      .map((w) => w.name)
      .sort();

  it('refuses a second "Home" in any case, with the workspace that has it; another person may have one', async () => {
    const home = await create('Home');
    expect(home.status).toBe(201);
    const again = await create('hOME');
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'workspace_name_taken',
      details: { workspaceId: home.body.data.workspace.workspaceId, name: 'Home' },
    });
    expect(again.body.error.message).toContain('"Home"');
    expect(again.body.error.hint).toMatch(/another name/);
    expect(await names()).toEqual(['Home']);

    const other = await createUser(live.db, 'other');
    expect((await create('Home', other.apiKey)).status).toBe(201);
  });

  it('refuses a rename to a name another of the workspaces has, and allows a change of case of its own', async () => {
    const cabin = await create('Cabin');
    const id = cabin.body.data.workspace.workspaceId;
    const refused = await rename(id, 'HOME');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('workspace_name_taken');
    const recased = await rename(id, 'CABIN');
    expect(recased.status, JSON.stringify(recased.body)).toBe(200);
    expect(await names()).toEqual(['CABIN', 'Home']);
  });

  it('lets one of several concurrent creations of a name through', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => create('Twin')));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    expect((await names()).filter((n) => n === 'Twin')).toHaveLength(1);
  });
});
