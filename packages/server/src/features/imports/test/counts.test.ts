// Issue 37: an import's counts are the file's rows. A card payment is booked as a transfer's two legs (the second on
// the clearing account, or the paying account's entry it pairs with), yet POST /v1/imports says "3 rows to add" for
// a card file of 3 rows, with the transfer told apart in a note: "1 of them a card payment paired with checking".
import { CLEARING_ACCOUNT } from '@expense/import';
import { describe, expect, it } from 'vitest';
import { addWorkspace, ENGINES } from '../../sql/test/setup.js';
import { CARD, CHECKING, importSuite } from './fixtures.js';

const HELD = `3 rows to add, 1 of them a card payment whose other side waits on ${CLEARING_ACCOUNT} until the paying account's file is imported.`;

describe.each(ENGINES)('an import counts the rows of its file, on $name', (engine) => {
  const suite = importSuite(engine, { currency: 'USD' });
  const post = suite.post;
  const count = async (ws: string) =>
    (
      await suite.live.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM public.ledger_entries WHERE workspace_id = $1',
        [ws],
      )
    ).rows[0]!.n;

  it("a card's payment held on the clearing account: 3 rows, not 4", async () => {
    const ws = await addWorkspace(suite.live.db, suite.user.userId, 'Held');
    const dry = await post(ws, CARD, { account: 'amex', dryRun: 'true' });
    expect(dry.rows).toEqual({ add: 3, skip: 0, refuse: 0 });
    expect(dry.toAdd.map((r: { account_id: string }) => r.account_id)).toEqual(['amex', 'amex', 'amex']);
    expect(dry.notes).toContain(HELD);
    const done = await post(ws, CARD, { account: 'amex' });
    expect(done.rows).toEqual({ add: 3, skip: 0, refuse: 0 });
    expect(done.notes).toContain(HELD.replace('to add', 'added'));
    // Four entries in the ledger: the file's three and the payment's other side.
    expect(await count(ws)).toBe(4);
    const again = await post(ws, CARD, { account: 'amex' });
    expect(again.rows).toEqual({ add: 0, skip: 3, refuse: 0 });
    expect(again.notes.filter((n: string) => n.includes('of them'))).toEqual([]);

    // The paying account's file moves the waiting leg: its 3 rows, 1 of them the other side of amex's payment.
    const checking = await post(ws, CHECKING, { account: 'checking' });
    expect(checking.rows).toEqual({ add: 3, skip: 0, refuse: 0 });
    expect(checking.notes).toContain('3 rows added, 1 of them the other side of a card payment on amex.');
    expect(await count(ws)).toBe(6);
  });

  it("a card's payment paired with the paying account's entry: 3 rows, 1 of them paired with checking", async () => {
    const ws = await addWorkspace(suite.live.db, suite.user.userId, 'Paired');
    await post(ws, CHECKING, { account: 'checking' });
    const dry = await post(ws, CARD, { account: 'amex', dryRun: 'true' });
    expect(dry.rows).toEqual({ add: 3, skip: 0, refuse: 0 });
    expect(dry.notes).toContain('3 rows to add, 1 of them a card payment paired with checking.');
    const done = await post(ws, CARD, { account: 'amex' });
    expect(done.rows).toEqual({ add: 3, skip: 0, refuse: 0 });
    expect(await count(ws)).toBe(6);
    const again = await post(ws, CARD, { account: 'amex' });
    expect(again.rows).toEqual({ add: 0, skip: 3, refuse: 0 });
  });
});
