// Issue 37: a card's payment is a transfer, never income. Through POST /v1/imports on both engines: the card's file
// first (the other side waits on the clearing account, then the paying account's file moves it), or the paying
// account's file first (the card's payment pairs with its entry); monthly income never grows by the payment, both
// balances are the banks', and importing either file again adds nothing.
import { CLEARING_ACCOUNT } from '@expense/import';
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { describe, expect, it } from 'vitest';
import { addWorkspace, ENGINES } from '../../sql/test/setup.js';
import { CARD, CHECKING, importSuite } from './fixtures.js';

describe.each(ENGINES)('card payments are transfers, on $name', (engine) => {
  const suite = importSuite(engine);
  const post = suite.post;
  const entries = async (ws: string) =>
    (
      await suite.live.db.query<{
        account_id: string;
        amount: string;
        kind: string;
        event_id: string | null;
      }>(
        `SELECT account_id, amount::text AS amount, kind, event_id FROM public.ledger_entries
          WHERE workspace_id = $1 ORDER BY account_id, ts, amount`,
        [ws],
      )
    ).rows;
  const balances = async (ws: string) =>
    Object.fromEntries(
      (
        await suite.live.db.query<{ account_id: string; balance: string }>(
          `SELECT account_id, sum(amount)::text AS balance FROM public.ledger_entries
            WHERE workspace_id = $1 GROUP BY account_id ORDER BY account_id`,
          [ws],
        )
      ).rows.map((r) => [r.account_id, Number(r.balance)]),
    );
  /** March's income and spending as the monthly_trend report says them. */
  const march = async (ws: string) => {
    const res = await call(suite.live, API_ROUTES.report, {
      params: { kind: 'monthly_trend' },
      query: { from: '2026-03-01', to: '2026-03-31' },
      key: suite.user.apiKey,
      headers: { 'x-workspace-id': ws },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const row = (res.body.data.rows as { income: string; spent: string }[])[0]!;
    return { income: Number(row.income), spent: Number(row.spent) };
  };
  /** The transfer's two legs: one event, kind transfer, summing to zero. */
  const legs = async (ws: string) =>
    (await entries(ws))
      .filter((e) => e.kind === 'transfer')
      .map((e) => `${e.account_id} ${Number(e.amount)} ${e.event_id === null ? 'no event' : 'event'}`);

  it("the card's file first: the other side waits on the clearing account, the checking file moves it", async () => {
    const ws = await addWorkspace(suite.live.db, suite.user.userId, 'Card first');
    const dry = await post(ws, CARD, { account: 'amex', currency: 'USD', dryRun: 'true' });
    expect(dry.notes).toContain(
      `line 3: transfer, other side not yet imported (held on ${CLEARING_ACCOUNT})`,
    );
    await post(ws, CARD, { account: 'amex', currency: 'USD' });
    expect(await legs(ws)).toEqual(['amex 500 event', `${CLEARING_ACCOUNT} -500 event`]);
    expect(await march(ws)).toEqual({ income: 0, spent: 102.12 });

    const checkingDry = await post(ws, CHECKING, { account: 'checking', currency: 'USD', dryRun: 'true' });
    expect(checkingDry.notes).toContain('line 3: transfer, matched to amex 2026-03-18');
    expect(checkingDry.rows.add).toBe(3);
    const done = await post(ws, CHECKING, { account: 'checking', currency: 'USD' });
    expect(done).toMatchObject({ committed: true, rows: { add: 3 } });
    // The clearing leg became the checking account's row: no second row, nothing left waiting.
    expect(await legs(ws)).toEqual(['amex 500 event', 'checking -500 event']);
    const [a, b] = (await entries(ws)).filter((e) => e.kind === 'transfer');
    expect(a!.event_id).toBe(b!.event_id);
    expect(await balances(ws)).toEqual({ amex: 397.88, checking: 1300 });
    expect(await march(ws)).toEqual({ income: 3000, spent: 1302.12 });

    // Either file again adds nothing.
    const before = await entries(ws);
    for (const [file, account] of [
      [CARD, 'amex'],
      [CHECKING, 'checking'],
    ] as const) {
      const again = await post(ws, file, { account, currency: 'USD' });
      expect(again).toMatchObject({ committed: false, rows: { add: 0 } });
    }
    expect(await entries(ws)).toEqual(before);
  });

  it("the paying account's file first: the card's payment pairs with its entry in one change", async () => {
    const ws = await addWorkspace(suite.live.db, suite.user.userId, 'Checking first');
    await post(ws, CHECKING, { account: 'checking', currency: 'USD' });
    expect(await legs(ws)).toEqual([]);
    const dry = await post(ws, CARD, { account: 'amex', currency: 'USD', dryRun: 'true' });
    expect(dry.notes).toContain('line 3: transfer, matched to checking 2026-03-15');
    expect(dry.rows.add).toBe(3);
    // A dry run changes nothing.
    expect(await legs(ws)).toEqual([]);
    const done = await post(ws, CARD, { account: 'amex', currency: 'USD' }, `card-${engine.name}`);
    expect(done).toMatchObject({ committed: true, rows: { add: 3 } });
    expect(await legs(ws)).toEqual(['amex 500 event', 'checking -500 event']);
    // The same request again (its Idempotency-Key): the kept answer, planned the same way, nothing run.
    const replay = await post(ws, CARD, { account: 'amex', currency: 'USD' }, `card-${engine.name}`);
    expect([suite.replayed, replay.changeId]).toEqual(['true', done.changeId]);
    expect(await balances(ws)).toEqual({ amex: 397.88, checking: 1300 });
    expect(await march(ws)).toEqual({ income: 3000, spent: 1302.12 });

    const before = await entries(ws);
    const again = await post(ws, CARD, { account: 'amex', currency: 'USD' });
    expect(again).toMatchObject({ committed: false, rows: { add: 0 } });
    expect(await entries(ws)).toEqual(before);
  });

  it('an entry further than seven days away, or of another amount, is not paired', async () => {
    const ws = await addWorkspace(suite.live.db, suite.user.userId, 'Far apart');
    await post(ws, CHECKING.replace('03/15/2026', '03/01/2026'), { account: 'checking', currency: 'USD' });
    await post(ws, CARD, { account: 'amex', currency: 'USD' });
    expect(await legs(ws)).toEqual(['amex 500 event', `${CLEARING_ACCOUNT} -500 event`]);
    expect(await balances(ws)).toEqual({ amex: 397.88, checking: 1300, [CLEARING_ACCOUNT]: -500 });
  });

  it("a card's file that does not say so: the workspace's account type does", async () => {
    const ws = await addWorkspace(suite.live.db, suite.user.userId, 'Account type');
    // Charges negative, the payment positive, no title: nothing in the file says card.
    const plain =
      'Date,Description,Amount\n03/14/2026,GROCERY OUTLET,-82.13\n03/18/2026,PAYMENT - THANK YOU,500.00\n03/20/2026,BOOKSHOP,-19.99\n';
    const unknown = await post(ws, plain, { account: 'visa', currency: 'USD', dryRun: 'true' });
    expect(unknown.toAdd.map((r: { kind: string }) => r.kind)).toEqual(['spend', 'income', 'spend']);
    await suite.live.db.query(
      "INSERT INTO public.account_metadata (workspace_id, account_id, account_type) VALUES ($1, 'visa', 'credit_card')",
      [ws],
    );
    const dry = await post(ws, plain, { account: 'visa', currency: 'USD', dryRun: 'true' });
    expect(dry.notes).toContain(
      `line 3: transfer, other side not yet imported (held on ${CLEARING_ACCOUNT})`,
    );
    await post(ws, plain, { account: 'visa', currency: 'USD' });
    expect(await legs(ws)).toEqual([`${CLEARING_ACCOUNT} -500 event`, 'visa 500 event']);
    expect(await march(ws)).toEqual({ income: 0, spent: 102.12 });
    const again = await post(ws, plain, { account: 'visa', currency: 'USD' });
    expect(again).toMatchObject({ committed: false, rows: { add: 0 } });
  });

  it('many payments in one file: the lookups stay within the guard (several reads of at most 40 legs)', async () => {
    const ws = await addWorkspace(suite.live.db, suite.user.userId, 'Many payments');
    const lines = ['Date,Description,Amount'];
    for (let i = 0; i < 100; i++)
      lines.push(`03/${String((i % 28) + 1).padStart(2, '0')}/2026,SHOP ${i},${i + 1}.25`);
    for (let i = 0; i < 45; i++)
      lines.push(`04/${String((i % 28) + 1).padStart(2, '0')}/2026,PAYMENT - THANK YOU,-${i + 10}.00`);
    const dry = await post(ws, `${lines.join('\n')}\n`, { account: 'amex', currency: 'USD', dryRun: 'true' });
    expect(dry.notes.filter((n: string) => n.includes('other side not yet imported'))).toHaveLength(45);
    // The file's 145 rows, 45 of them card payments whose other sides wait on the clearing account.
    expect(dry.rows.add).toBe(145);
    expect(dry.notes).toContain(
      `145 rows to add, 45 of them transfers: 45 card payments whose other side waits on ${CLEARING_ACCOUNT} until the paying account's file is imported.`,
    );
  });
});
