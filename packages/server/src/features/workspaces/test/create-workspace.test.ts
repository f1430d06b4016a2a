// Issue 23, item 3, and issue 21, item 5: POST /v1/workspaces {name, currency?, timeZone?} creates the workspace
// whole (its settings filled), refuses invalid settings and unknown fields with 400 invalid_request and a hint,
// and a user owns at most EXPENSE_MAX_WORKSPACES_PER_USER workspaces (409 limit_reached beyond), also when the
// creations race.
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, ENGINES, type Live, startLive, type TestUser } from '../../sql/test/setup.js';

const LIMIT = 4;

describe.each(ENGINES)('creating workspaces on $name', (engine) => {
  let live: Live;
  let user: TestUser;

  beforeAll(async () => {
    live = await startLive(engine, { maxWorkspacesPerUser: LIMIT });
    user = await createUser(live.db);
  });
  afterAll(async () => live?.close());

  // Sent as given, outside the route's body schema (call takes only bodies the schema allows).
  const create = (body: unknown, key = user.apiKey) =>
    live.request(API_ROUTES.createWorkspace.method, routePath(API_ROUTES.createWorkspace), { key, body });
  const owned = async (key = user.apiKey) =>
    ((await call(live, API_ROUTES.workspaces, { key })).body.data.workspaces as unknown[]).length;

  it('fills currency and time zone, and SQL runs in that zone', async () => {
    const res = await create({ name: 'Berlin', currency: 'EUR', timeZone: 'Europe/Berlin' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { workspace, settings } = res.body.data;
    expect(workspace).toMatchObject({ name: 'Berlin', role: 'owner' });
    expect(settings).toEqual({ currency: 'EUR', timeZone: 'Europe/Berlin' });
    const read = await call(live, API_ROUTES.sqlQuery, {
      key: user.apiKey,
      headers: { 'x-workspace-id': workspace.workspaceId },
      body: { sql: 'SELECT reporting_currency, timezone FROM workspace_settings' },
    });
    expect(read.body.data.statements[0].rows).toEqual([
      { reporting_currency: 'EUR', timezone: 'Europe/Berlin' },
    ]);
    expect(read.body.data.clock.timeZone).toBe('Europe/Berlin');

    const plain = await create({ name: 'Plain' });
    expect(plain.status).toBe(201);
    expect(plain.body.data.settings).toEqual({ currency: 'USD', timeZone: 'UTC' });
  });

  it('refuses invalid settings and unknown fields with 400 invalid_request and a hint, creating nothing', async () => {
    const before = await owned();
    const cases: [unknown, RegExp][] = [
      [{ name: 'X', currency: 'eur' }, /ISO 4217/],
      [{ name: 'X', currency: 'XYZ' }, /ISO 4217/],
      [{ name: 'X', currency: 12 }, /ISO 4217/],
      [{ name: 'X', timeZone: 'Mars/Olympus' }, /IANA/],
      [{ name: 'X', timeZone: "Europe/Berlin'; --" }, /IANA/],
      [{ name: 'X', timeZone: '+01:00' }, /IANA/],
      [{ name: 'X', colour: 'red' }, /./],
      [{ name: 'X', currency: 'EUR', reportingCurrency: 'EUR' }, /./],
    ];
    for (const [body, hint] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.hint).toMatch(hint);
    }
    const unknown = await create({ name: 'X', colour: 'red' });
    expect(unknown.body.error.message).toMatch(/colour/);
    expect(await owned()).toBe(before);
    // A bad name keeps its own code.
    expect((await create({ name: ' ', currency: 'EUR' })).body.error.code).toBe('invalid_workspace_name');
  });

  it(`caps the workspaces a user owns at ${LIMIT} (409 limit_reached), also under concurrent creation`, async () => {
    // Names differ: a user's workspace names are unique, ignoring case (workspace-names.test.ts).
    for (let n = 1; (await owned()) < LIMIT; n++)
      expect((await create({ name: `More ${n}` })).status).toBe(201);
    const refused = await create({ name: 'One too many' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'limit_reached',
      details: { limit: LIMIT, current: LIMIT },
    });
    expect(refused.body.error.hint).toMatch(/GET \/v1\/workspaces/);
    expect(await owned()).toBe(LIMIT);

    const racer = await createUser(live.db);
    const answers = await Promise.all(
      Array.from({ length: LIMIT * 2 }, (_, i) => create({ name: `Race ${i}` }, racer.apiKey)),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(LIMIT);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(LIMIT);
    expect(await owned(racer.apiKey)).toBe(LIMIT);
  });
});
