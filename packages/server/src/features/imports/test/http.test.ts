// Issue 37: POST /v1/imports reads a bank file with @expense/import on the server and writes it as `expense import`
// does (batches that skip external_ids already there, one change). On both engines, over real HTTP: the same file
// gives the same rows as the reader used directly (what the CLI runs), a re-import adds nothing, and what cannot be
// read right is refused with its code and changes nothing.
import { fileRows, type LedgerRow } from '@expense/import';
import { call, routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Json,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';
import { AMBIGUOUS_CARD, FILES, fixture, readerRows } from './fixtures.js';

const shape = (r: Record<string, unknown>) => [r.ts, r.account_id, r.amount, r.currency, r.external_id];

describe.each(ENGINES)('POST /v1/imports on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let ws: string;

  const post = (
    body: Uint8Array | string,
    query: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${live.origin}${routePath(API_ROUTES.importFile, {}, query)}`, {
      method: API_ROUTES.importFile.method,
      headers: {
        authorization: `ApiKey ${user.apiKey}`,
        'x-workspace-id': ws,
        'content-type': 'application/octet-stream',
        ...headers,
      },
      body,
    }) as Promise<Omit<Response, 'json'> & { json(): Promise<Json> }>;
  const count = async () =>
    (
      await live.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM public.ledger_entries WHERE workspace_id = $1',
        [ws],
      )
    ).rows[0]!.n;
  const changes = async () =>
    (await call(live, API_ROUTES.changes, { key: user.apiKey, headers: { 'x-workspace-id': ws } })).body.data
      .changes as { changeId: string; shortId: string }[];

  beforeAll(async () => {
    live = await startLive(engine);
    user = await createUser(live.db);
    ws = await addWorkspace(live.db, user.userId, 'Imports');
  });
  afterAll(async () => live?.close());

  it.each(FILES)(
    '$name: the same rows as the reader, committed as one change, and once only',
    async (file) => {
      const expected = await readerRows(file.name, file.account);
      expect(expected.length).toBeGreaterThan(0);
      const query: Record<string, string> = file.account ? { account: file.account } : {};
      const dry = await post(fixture(file.name), { ...query, dryRun: 'true' });
      const dryBody = (await dry.json()) as Json;
      expect(dry.status, JSON.stringify(dryBody)).toBe(200);
      expect(dryBody.data.committed).toBe(false);
      expect(dryBody.data).not.toHaveProperty('shortId');
      // The file's rows (a card payment's clearing leg is the other side of one of them, not counted).
      const own = fileRows(expected);
      expect(dryBody.data.rows.add).toBe(own.length);
      expect(dryBody.data.toAdd.map(shape)).toEqual(own.slice(0, 100).map((r) => shape(r as never)));
      const before = await count();
      const historyBefore = (await changes()).length;

      const done = await post(fixture(file.name), query, { 'idempotency-key': `import-${file.name}` });
      const doneBody = (await done.json()) as Json;
      expect(done.status, JSON.stringify(doneBody)).toBe(200);
      expect(doneBody.data).toMatchObject({ committed: true, rows: { add: own.length } });
      expect(doneBody.data.changeId).toEqual(expect.any(String));
      expect(await count()).toBe(before + expected.length);
      expect((await changes()).length).toBe(historyBefore + 1);
      // Issue 41: the change's short id, as the history lists it (its newest batch stands for the import).
      const listed = (await changes()).find((c) => c.changeId === doneBody.data.changeId);
      expect(doneBody.data.shortId).toMatch(/^[0-9a-f]{8,}/);
      expect(listed?.shortId).toBe(doneBody.data.shortId);
      expect(doneBody.instructions.join(' ')).toContain(`(short id ${doneBody.data.shortId})`);

      // The same key and file: the kept answer, nothing run; the same file without a key: nothing to add.
      const replay = await post(fixture(file.name), query, { 'idempotency-key': `import-${file.name}` });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const replayBody = (await replay.json()) as Json;
      expect(replayBody.data).toMatchObject({
        changeId: doneBody.data.changeId,
        shortId: doneBody.data.shortId,
      });
      const again = await (await post(fixture(file.name), query)).json();
      expect(again.data).toMatchObject({ committed: false, rows: { add: 0 } });
      expect(again.data.skipped.length).toBeGreaterThanOrEqual(own.length);
      expect(await count()).toBe(before + expected.length);
      expect((await changes()).length).toBe(historyBefore + 1);
    },
  );

  it("a dry run's confirmToken commits that file once: the same token replays, another file or account is refused", async () => {
    const tokens = await addWorkspace(live.db, user.userId, 'Tokens');
    const headers = { 'x-workspace-id': tokens };
    const rowsIn = async () =>
      (
        await live.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM public.ledger_entries WHERE workspace_id = $1',
          [tokens],
        )
      ).rows[0]!.n;
    const query = { account: 'wise' };
    const expected = await readerRows('wise.csv', 'wise');
    const dry = await (await post(fixture('wise.csv'), { ...query, dryRun: 'true' }, headers)).json();
    const confirmToken = dry.data.confirmToken as string;
    expect(confirmToken).toEqual(expect.any(String));

    // Bound to the bytes and the options: another file, or the same file into another account, is refused.
    for (const [bytes, q] of [
      [fixture('uk-amex-uk.csv'), query],
      [fixture('wise.csv'), { account: 'elsewhere' }],
    ] as const) {
      const refused = await post(bytes, { ...q, confirmToken }, headers);
      const body = await refused.json();
      expect([refused.status, body.error.code]).toEqual([400, 'confirmation_mismatch']);
      expect(body.error.message).toMatch(/another file/);
    }
    expect(await rowsIn()).toBe(0);

    const done = await post(fixture('wise.csv'), { ...query, confirmToken }, headers);
    const doneBody = await done.json();
    expect(done.status, JSON.stringify(doneBody)).toBe(200);
    expect(doneBody.data).toMatchObject({ committed: true, rows: { add: expected.length } });
    expect(await rowsIn()).toBe(expected.length);

    // The same token again is the same commit (its batches keyed by the token): replayed, nothing added ...
    const again = await post(fixture('wise.csv'), { ...query, confirmToken }, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await again.json()).data.changeId).toBe(doneBody.data.changeId);
    // ... and under another Idempotency-Key the token is spent (it was, in the first batch's transaction).
    const spent = await post(
      fixture('wise.csv'),
      { ...query, confirmToken },
      { ...headers, 'idempotency-key': 'another-commit' },
    );
    expect([spent.status, (await spent.json()).error.code]).toEqual([409, 'confirmation_used']);
    expect(await rowsIn()).toBe(expected.length);
  });

  it('refuses an ambiguous card file with import_ambiguous_sign naming the parameters, and changes nothing', async () => {
    const before = await count();
    const refused = await post(AMBIGUOUS_CARD, { account: 'card' });
    const body = await refused.json();
    expect([refused.status, body.error.code]).toEqual([400, 'import_ambiguous_sign']);
    expect(body.error.hint).toMatch(/chargesPositive=true/);
    expect(body.error.hint).toMatch(/chargesNegative=true/);
    expect(await count()).toBe(before);
    const told = await (
      await post(AMBIGUOUS_CARD, { account: 'card', chargesPositive: 'true', dryRun: 'true' })
    ).json();
    expect(told.data.toAdd.map((r: LedgerRow) => r.amount)).toEqual(['-4.50', '-82.13', '-19.99']);
  });

  it('names account= for a file that names no account', async () => {
    const refused = await post(fixture('wise.csv'), { dryRun: 'true' });
    const body = await refused.json();
    expect(refused.status, JSON.stringify(body)).toBe(400);
    expect(JSON.stringify(body.error)).toMatch(/account=/);
  });

  it('refuses a zip with import_unreadable and a body over 10 MiB with 413', async () => {
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new Array(200).fill(0)]);
    const unreadable = await post(zip, { account: 'a' });
    expect([unreadable.status, (await unreadable.json()).error.code]).toEqual([400, 'import_unreadable']);
    const big = new Uint8Array(10 * 1024 * 1024 + 1).fill(0x41);
    const tooLarge = await post(big, { account: 'a' });
    expect(tooLarge.status).toBe(413);
    expect((await tooLarge.json()).error.code).toBe('import_too_large');
  });

  it("names the lines to fix in the API's words: no option of the CLI, and nothing written", async () => {
    const csv =
      'ts,amount,counterparty\n2026-03-24,-12.50,Bakery\n2026-03-25,"-1,50",Kiosk\n2026-03-26,-4.00,Cafe\n';
    const before = await count();
    const refused = await post(csv, { account: 'checking' });
    const body = (await refused.json()) as Json;
    expect(refused.status, JSON.stringify(body)).toBe(400);
    expect(body.error).toMatchObject({ code: 'import_unreadable', details: { variant: 'rows_refused' } });
    const problems = body.error.details.problems as { line: number; field?: string; message: string }[];
    expect(problems).toContainEqual(
      expect.objectContaining({
        line: 3,
        field: 'amount',
        message: expect.stringMatching(/ — a decimal comma\?$/),
      }),
    );
    for (const p of problems) expect(p.message).not.toMatch(/--[a-z]/);
    expect(await count()).toBe(before);
  });
});
