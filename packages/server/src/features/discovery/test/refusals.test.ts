// Issue 13, points 2 and 4: a database refusal names its rule and the next step (never a position it does not
// carry), a duplicate external_id names the value, and a transfer balances per event_id and currency at commit,
// in a dry run too.
import { randomUUID } from 'node:crypto';
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Json,
  type Live,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';

const TS = "TIMESTAMPTZ '2026-08-10 09:00:00+00'";
const COLUMNS =
  'INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, event_id, external_id)';
const q = (v: string | null) => (v === null ? 'NULL' : `'${v}'`);
function row(
  account: string,
  amount: number,
  options: {
    currency?: string;
    kind?: string;
    category?: string | null;
    event?: string | null;
    ext?: string | null;
  } = {},
): string {
  const { currency = 'EUR', kind = 'spend', category = null, event = null, ext = null } = options;
  return `(${TS}, '${account}', ${amount}, '${currency}', '${kind}', ${q(category)}, ${q(event)}, ${q(ext)})`;
}
const insert = (...rows: string[]) => `${COLUMNS} VALUES ${rows.join(', ')}`;

describe.each(ENGINES)('database refusals on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  type SqlWrite = typeof API_ROUTES.sqlScript | typeof API_ROUTES.sqlExecute;
  const send = (sql: string, options: { dryRun?: boolean; route?: SqlWrite; key?: string } = {}) =>
    call(live, options.route ?? API_ROUTES.sqlScript, {
      key: options.key ?? user.apiKey,
      body: { sql, ...(options.dryRun ? { dryRun: true } : {}) },
    });
  const count = async (where: string) =>
    Number(
      (
        await live.db.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM public.ledger_entries WHERE workspace_id = $1 AND ${where}`,
          [workspaceId],
        )
      ).rows[0]?.n,
    );
  /** A refusal's error, checked for the envelope every refusal shares. */
  function refusal(res: { status: number; body: Json }, constraint: string | undefined, sqlstate: string) {
    expect(res.status).toBe(400);
    const error = res.body.error;
    expect(error.code).toBe('sql_execution_failed');
    expect(error.details.sqlstate).toBe(sqlstate);
    if (constraint) expect(error.details.constraint).toBe(constraint);
    if (error.details.position === undefined) expect(error.hint).not.toMatch(/position/);
    expect(JSON.stringify(error)).not.toContain(workspaceId);
    return error as { message: string; hint: string; details: Record<string, unknown> };
  }

  it('names a duplicate external_id and says the row exists; a repeat within a statement too', async () => {
    expect((await send(insert(row('card', -5, { ext: 'bank-001' })))).status).toBe(200);
    const again = await send(
      insert(row('card', -6, { ext: 'bank-002' }), row('card', -5, { ext: 'bank-001' })),
    );
    const error = refusal(again, 'ledger_entries_external_id_key', '23505');
    expect(error.details.column).toBe('external_id');
    expect(error.message).toContain("'bank-001'");
    expect(error.hint).toContain("external_id 'bank-001' already exists");
    expect(error.hint).toContain('SELECT external_id FROM ledger_entries WHERE external_id IN');
    expect(await count("external_id = 'bank-002'")).toBe(0);

    const twice = await send(
      insert(row('card', -1, { ext: 'bank-003' }), row('card', -1, { ext: 'bank-003' })),
    );
    const within = refusal(twice, 'ledger_entries_external_id_key', '23505');
    expect(within.hint).toContain(
      "external_id 'bank-003' already exists in this workspace (written before, or by an earlier row of this statement)",
    );
  });

  it('never tells whether another workspace holds an external_id', async () => {
    const other = await createUser(live.db);
    const foreign = await addWorkspace(live.db, other.userId, 'Other');
    const mine = await send(insert(row('card', -1, { ext: 'secret-77' })), { key: other.apiKey });
    expect(mine.status).toBe(200);
    // Naming the other workspace: refused by row-level security, the same whether the value exists there or not.
    const probe = (ext: string) =>
      send(
        `INSERT INTO ledger_entries (workspace_id, ts, account_id, amount, currency, kind, external_id) VALUES ('${foreign}', ${TS}, 'x', 1, 'EUR', 'spend', '${ext}')`,
      );
    const held = await probe('secret-77');
    const free = await probe('never-used');
    expect(held.body.error.details.sqlstate).toBe('42501');
    expect(held.body.error.hint).toContain('Leave workspace_id out');
    expect({ ...held.body.error, message: '' }).toEqual({ ...free.body.error, message: '' });
    // In one's own workspace the value is free.
    expect((await send(insert(row('card', -1, { ext: 'secret-77' })))).status).toBe(200);
  });

  it('names the rule of each check and lists allowed values', async () => {
    const currency = refusal(
      await send(insert(row('card', -1, { currency: 'eur' }))),
      'ledger_entries_currency_check',
      '23514',
    );
    expect(currency.hint).toMatch(/ISO 4217 code of three upper-case letters/);

    const category = refusal(
      await send(
        insert(
          row('card', -1, { kind: 'transfer', category: 'savings', event: 't-cat' }),
          row('savings', 1, { kind: 'transfer', event: 't-cat' }),
        ),
      ),
      'ledger_entries_transfer_without_category',
      '23514',
    );
    expect(category.hint).toContain('neither income nor spending');
    expect(category.hint).toContain('category to NULL');

    const kind = refusal(
      await send(insert(row('card', -1, { kind: 'expense' }))),
      'ledger_entries_kind_check',
      '23514',
    );
    expect(kind.hint).toContain("'income', 'spend', 'transfer'");

    const type = refusal(
      await send("INSERT INTO account_metadata (account_id, account_type) VALUES ('card', 'bank')"),
      'account_metadata_account_type_check',
      '23514',
    );
    expect(type.hint).toContain(
      "'checking', 'savings', 'credit_card', 'cash', 'investment', 'loan', 'other'",
    );
    const liquidity = refusal(
      await send("INSERT INTO account_metadata (account_id, liquidity) VALUES ('card', 'very')"),
      'account_metadata_liquidity_check',
      '23514',
    );
    expect(liquidity.hint).toContain("'high', 'medium', 'low'");
    const direction = refusal(
      await send(
        "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value) VALUES (DATE '2026-08-01', 'out', 'food', 'EUR', 10)",
      ),
      'budget_lines_direction_check',
      '23514',
    );
    expect(direction.hint).toContain("'income', 'spend'");

    const missing = refusal(
      await send(
        "INSERT INTO ledger_entries (account_id, amount, currency, kind) VALUES ('card', 1, 'EUR', 'spend')",
      ),
      undefined,
      '23502',
    );
    expect(missing.details.column).toBe('ts');
    expect(missing.hint).toMatch(/^ts is required/);

    const settings = refusal(
      await send("INSERT INTO workspace_settings (reporting_currency) VALUES ('EUR')"),
      'workspace_settings_pkey',
      '23505',
    );
    expect(settings.hint).toContain('UPDATE workspace_settings');
  });

  it('keeps PostgreSQL positions, and mentions them only when present', async () => {
    const res = await send('SELECT amount / 0 AS x FROM ledger_entries');
    expect(res.status).toBe(400);
    expect(res.body.error.details.position).toBeUndefined();
    expect(res.body.error.hint).not.toMatch(/position/);
  });

  it('refuses a one-legged transfer at commit, and in a dry run the same way', async () => {
    const oneLeg = insert(row('checking', -100, { kind: 'transfer', event: 'move-1' }));
    for (const route of [API_ROUTES.sqlScript, API_ROUTES.sqlExecute]) {
      for (const dryRun of [false, true]) {
        const res = await send(oneLeg, { route, dryRun });
        const error = refusal(res, 'ledger_entries_transfer_balanced', '23514');
        expect(error.message).toContain("transfer event 'move-1' does not balance in EUR");
        expect(error.hint).toContain("event_id 'move-1' in EUR sum to -100, not 0");
        expect(error.hint).toContain('send both legs in one request');
      }
    }
    expect(await count("event_id = 'move-1'")).toBe(0);

    // With an Idempotency-Key the refusal is kept and replayed like any other.
    const key = randomUUID();
    const keyed = () =>
      call(live, API_ROUTES.sqlScript, {
        key: user.apiKey,
        body: { sql: oneLeg },
        headers: { 'idempotency-key': key },
      });
    const first = await keyed();
    expect(first.body.error.details.constraint).toBe('ledger_entries_transfer_balanced');
    const replay = await keyed();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('accepts both legs in one INSERT or one script; legs in two requests are refused', async () => {
    const legs = [
      row('checking', -100, { kind: 'transfer', event: 'move-2' }),
      row('savings', 100, { kind: 'transfer', event: 'move-2' }),
    ];
    expect((await send(insert(...legs), { route: API_ROUTES.sqlExecute })).status).toBe(200);
    const script = [
      insert(row('checking', -50, { kind: 'transfer', event: 'move-3' })),
      insert(row('savings', 50, { kind: 'transfer', event: 'move-3' })),
    ].join('; ');
    const dry = await send(script, { dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data.committed).toBe(false);
    expect((await send(script)).status).toBe(200);
    expect(await count("event_id IN ('move-2', 'move-3')")).toBe(4);

    // The first leg alone is unbalanced at its own commit, so the second never finds it.
    const first = await send(insert(row('checking', -10, { kind: 'transfer', event: 'move-4' })));
    refusal(first, 'ledger_entries_transfer_balanced', '23514');
    const second = await send(insert(row('savings', 10, { kind: 'transfer', event: 'move-4' })));
    refusal(second, 'ledger_entries_transfer_balanced', '23514');
    expect(await count("event_id = 'move-4'")).toBe(0);

    // A currency exchange balances per currency through an exchange account.
    const exchange = insert(
      row('eur-checking', -100, { kind: 'transfer', event: 'fx-1' }),
      row('fx-exchange', 100, { kind: 'transfer', event: 'fx-1' }),
      row('fx-exchange', -108, { kind: 'transfer', event: 'fx-1', currency: 'USD' }),
      row('usd-checking', 108, { kind: 'transfer', event: 'fx-1', currency: 'USD' }),
    );
    expect((await send(exchange)).status).toBe(200);
    const lopsided = insert(
      row('eur-checking', -100, { kind: 'transfer', event: 'fx-2' }),
      row('usd-checking', 108, { kind: 'transfer', event: 'fx-2', currency: 'USD' }),
    );
    refusal(await send(lopsided), 'ledger_entries_transfer_balanced', '23514');
  });

  it('keeps transfers balanced through updates and deletes, and requires an event_id', async () => {
    const one = (sql: string) => send(sql, { route: API_ROUTES.sqlExecute });
    refusal(
      await one("UPDATE ledger_entries SET amount = -99 WHERE event_id = 'move-2' AND amount < 0"),
      'ledger_entries_transfer_balanced',
      '23514',
    );
    refusal(
      await one("DELETE FROM ledger_entries WHERE event_id = 'move-2' AND amount < 0"),
      'ledger_entries_transfer_balanced',
      '23514',
    );
    refusal(
      await one("UPDATE ledger_entries SET currency = 'USD' WHERE event_id = 'move-2' AND amount > 0"),
      'ledger_entries_transfer_balanced',
      '23514',
    );
    expect((await one("UPDATE ledger_entries SET amount = -amount WHERE event_id = 'move-2'")).status).toBe(
      200,
    );
    expect(
      (await one("UPDATE ledger_entries SET note = 'moved' WHERE event_id = 'move-2' AND amount < 0")).status,
    ).toBe(200);
    expect((await one("DELETE FROM ledger_entries WHERE event_id = 'move-2'")).status).toBe(200);

    const noEvent = refusal(
      await one(insert(row('checking', -1, { kind: 'transfer' }), row('savings', 1, { kind: 'transfer' }))),
      'ledger_entries_transfer_event_id',
      '23514',
    );
    expect(noEvent.hint).toContain('needs an event_id');
  });
});
