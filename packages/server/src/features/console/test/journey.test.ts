// A household member's month in the console, in a real headless Chromium, without a line of SQL: an owner
// invites them (by the API); they follow the link in the invitation mail, sign in with the code mailed to
// them (both mails over real SMTP), accept the invitation, import their bank's CSV export, recategorise three
// transactions, copy this month's budget into next month, and read this month's spending against budget on
// Home. Each step is checked in the database too; every page visited passes axe-core, with no console error
// and no Content-Security-Policy violation.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { call, type Response } from '@expense/test-kit';
import { AGENT_ROUTES, API_ROUTES } from '@expense/wire';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  axeClean,
  BANKS,
  browserAvailable,
  type ConsoleServer,
  checkFile,
  go,
  headerWorkspace,
  IMPORT_CORE,
  type Person,
  startConsole,
} from './browser-kit.js';

const OWNER = 'owner@example.com';
const MEMBER = 'sam@example.com';
const ACCOUNT = 'checking';
/** Three of the bank file's rows (by their amount) and the category the person gives each. */
const RECATEGORISED = [
  ['-4.5', 'eating out'],
  ['-82.13', 'groceries'],
  ['-417.87', 'rent'],
] as const;
/** This month's budget, entered on the Budgets page. */
const BUDGET = [
  ['groceries', '300'],
  ['rent', '500'],
] as const;

/** The fields of the API's answers this test reads. */
interface ApiData {
  otpSessionToken?: string;
  apiKey?: string;
  workspace?: { workspaceId: string };
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

describe.runIf(browserAvailable())('a person’s month in the console', { timeout: 180_000 }, () => {
  let server: ConsoleServer;
  let origin: string;
  let sam: Person;
  let workspaceId: string;
  let today: string;

  // The mails go over real SMTP, as a mail client gets them.
  beforeAll(async () => {
    server = await startConsole({ mail: 'smtp' });
    origin = server.origin;
  }, 120_000);
  afterAll(() => server?.close());

  /** One statement on the test's database as its superuser (row-level security does not apply). */
  const db = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    server.adminQuery<R>(sql, params);

  /** Every page the person visits: axe-core clean, no error shown. */
  async function checked(page: Page, what: string): Promise<void> {
    expect(await page.getByRole('alert').allTextContents(), what).toEqual([]);
    await axeClean(page, what);
  }

  it('an owner (by the API) invites the person; the invitation is mailed with the console’s link', async () => {
    /** A route's answer, which must be a success: its data. */
    const ok = (res: Response) => {
      expect(res.status, res.text).toBeLessThan(300);
      return res.body.data as ApiData;
    };
    const sent = ok(await call(server, AGENT_ROUTES.sendCode, { body: { email: OWNER } }));
    const verified = ok(
      await call(server, AGENT_ROUTES.verifyCode, {
        body: {
          code: await server.codeFor(OWNER),
          otpSessionToken: sent.otpSessionToken ?? '',
          label: 'owner script',
        },
      }),
    );
    const key = verified.apiKey ?? '';
    const created = ok(await call(server, API_ROUTES.createWorkspace, { key, body: { name: 'Household' } }));
    workspaceId = created.workspace?.workspaceId ?? '';
    ok(await call(server, API_ROUTES.addMember, { key, params: { workspaceId }, body: { email: MEMBER } }));
    const [pending] = await db<{ n: string }>(
      `SELECT count(*) AS n FROM expense_internal.workspace_invitations i
         JOIN expense_internal.users u USING (user_id) WHERE i.workspace_id = $1 AND u.email = $2`,
      [workspaceId, MEMBER],
    );
    expect(Number(pending?.n)).toBe(1);
  });

  it('signs in from the invitation mail’s link and accepts the invitation', async () => {
    const mail = (await server.mails()).find(
      (m) => m.to.includes(MEMBER) && m.body.includes('invited you to'),
    );
    expect(mail, 'the invitation mail').toBeDefined();
    const link = /https?:\/\/[^\s"<>]+\/console\//.exec(mail?.body ?? '')?.[0] ?? '';
    expect(link).toBe(`${origin}/console/`);

    sam = await server.newPerson();
    const { page } = sam;
    await page.goto(link);
    await page.getByRole('textbox', { name: 'E-mail address' }).waitFor();
    await checked(page, 'sign-in');
    await server.signIn(sam, MEMBER, link);
    await page
      .getByRole('status')
      .filter({ hasText: `${OWNER} invited you to “Household”.` })
      .waitFor();
    await checked(page, 'home with the invitation');
    await page.getByRole('link', { name: 'Accept or decline on the Members page' }).click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await checked(page, 'members with the invitation');
    await page.getByRole('button', { name: 'Accept Household' }).click();
    await page.getByRole('status').filter({ hasText: 'Joined “Household”.' }).waitFor();
    expect(await headerWorkspace(page)).toBe('Household');
    await checked(page, 'members after joining');

    const members = await db<{ email: string; role: string }>(
      `SELECT u.email, m.role FROM expense_internal.workspace_members m
         JOIN expense_internal.users u USING (user_id) WHERE m.workspace_id = $1 ORDER BY u.email`,
      [workspaceId],
    );
    expect(members).toEqual([
      { email: OWNER, role: 'owner' },
      { email: MEMBER, role: 'member' },
    ]);
    const [left] = await db<{ n: string }>(
      'SELECT count(*) AS n FROM expense_internal.workspace_invitations WHERE workspace_id = $1',
      [workspaceId],
    );
    expect(Number(left?.n)).toBe(0);
  });

  it('imports the bank’s CSV export on the Import page', async () => {
    expect(existsSync(IMPORT_CORE), 'console/build/import-core.js: run pnpm build first').toBe(true);
    const { page } = sam;
    // The CLI's Chase fixture, its rows moved to today (the dashboard shows this month; UTC is the zone).
    const [{ day }] = (await db<{ day: string }>(
      "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day",
    )) as [{ day: string }];
    today = day;
    const [y, m, d] = today.split('-');
    const csv = (await readFile(join(BANKS, 'chase-checking.csv'), 'utf8')).replace(
      /,\d{2}\/\d{2}\/\d{4},/g,
      `,${m}/${d}/${y},`,
    );
    const file = join(await server.browsers.tempDir(), 'chase-checking.csv');
    await writeFile(file, csv);

    await go(page, 'import', 'Import');
    await checked(page, 'import');
    expect(await checkFile(page, file, ACCOUNT)).toContain('4 new rows to add of 4 in the file');
    await page.getByRole('table', { name: 'The 4 rows of the file' }).waitFor();
    await checked(page, 'import preview');
    await page.getByRole('button', { name: 'Import 4 rows' }).click();
    const done = page.getByRole('status').filter({ hasText: 'Imported 4 rows.' });
    await done.waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'journey-import.png'), fullPage: true });

    const stored = await db<{ amount: string; day: string }>(
      `SELECT amount::text AS amount, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM ledger_entries
         WHERE workspace_id = $1 AND account_id = $2 ORDER BY ledger_entries.amount`,
      [workspaceId, ACCOUNT],
    );
    expect(stored.map((r) => Number(r.amount))).toEqual([-417.87, -82.13, -4.5, 2500]);
    expect(new Set(stored.map((r) => r.day))).toEqual(new Set([today]));
    // The import is one change, by this person, and the page names it by its id's short form.
    const [change] = await db<{ change_id: string; email: string }>(
      `SELECT c.change_id::text, u.email FROM expense_internal.changes c
         JOIN expense_internal.users u ON u.user_id = c.user_id
        WHERE c.workspace_id = $1 ORDER BY c.seq DESC LIMIT 1`,
      [workspaceId],
    );
    expect(change?.email).toBe(MEMBER);
    const shown = done.locator('code');
    expect(await shown.getAttribute('title')).toBe(change?.change_id);
    expect(await shown.textContent()).toBe(change?.change_id.replace(/-/g, '').slice(-8));
  });

  it('recategorises three transactions in their rows on the Transactions page', async () => {
    const { page } = sam;
    await go(page, 'transactions', 'Transactions');
    // This month is the page's first filter: the four imported rows.
    const list = page.getByRole('table', { name: 'Transactions 1–4 of 4, newest first' });
    await list.waitFor();
    await checked(page, 'transactions');
    for (const [amount, category] of RECATEGORISED) {
      const entry = `${today} ${ACCOUNT} ${usd.format(Number(amount))}`;
      await page.getByRole('button', { name: `Edit ${entry}` }).click();
      await page.getByRole('combobox', { name: `Category of ${entry}` }).fill(category);
      await page.keyboard.press('Enter'); // saves the row
      await expect.poll(() => page.getByRole('combobox', { name: /^Category of / }).count()).toBe(0);
      await list.getByRole('cell', { name: category, exact: true }).waitFor();
      await expect
        .poll(async () => {
          const [row] = await db<{ category: string | null }>(
            'SELECT category FROM ledger_entries WHERE workspace_id = $1 AND amount = $2',
            [workspaceId, amount],
          );
          return row?.category;
        })
        .toBe(category);
    }
    await checked(page, 'transactions after the edits');
    await page.screenshot({ path: join(ARTIFACTS, 'journey-transactions.png'), fullPage: true });

    // Three changes in Activity, told apart by the short ids shown (their full ids in the title).
    await go(page, 'activity', 'Activity');
    const edits = page.getByRole('row', { name: /Changed 1 transaction · change/ });
    await expect.poll(() => edits.count()).toBe(3);
    const ids = await edits
      .locator('code')
      .evaluateAll((codes) =>
        codes.map((c) => ({ short: c.textContent ?? '', full: c.getAttribute('title') ?? '' })),
      );
    const logged = await db<{ change_id: string }>(
      `SELECT change_id::text FROM expense_internal.changes WHERE workspace_id = $1 ORDER BY seq DESC LIMIT 3`,
      [workspaceId],
    );
    expect(ids.map((i) => i.full)).toEqual(logged.map((r) => r.change_id));
    for (const { short, full } of ids) expect(short).toBe(full.replace(/-/g, '').slice(-8));
    expect(new Set(ids.map((i) => i.short)).size).toBe(3);
    await checked(page, 'activity');
  });

  it('sets this month’s budget and copies it into next month on the Budgets page', async () => {
    const { page } = sam;
    await go(page, 'budgets', 'Budgets');
    await page.getByText(/^No budget for \w{3} \d{4} yet\.$/).waitFor();
    await checked(page, 'budgets');
    for (const [category, planned] of BUDGET) {
      await page.getByRole('textbox', { name: 'Category' }).fill(category);
      await page.getByRole('textbox', { name: 'Planned (USD)' }).fill(planned);
      await page.getByRole('button', { name: 'Add line' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Budget for ${category} added` })
        .waitFor();
    }
    await page.getByRole('button', { name: 'Next month' }).click();
    await page.getByText(/^No budget for \w{3} \d{4} yet\.$/).waitFor();
    await page.getByRole('button', { name: /^Copy \w{3} \d{4}’s budget$/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^2 lines copied from / })
      .waitFor();
    await page.getByRole('textbox', { name: 'Planned for rent' }).waitFor();
    await checked(page, 'budgets of next month');
    await page.screenshot({ path: join(ARTIFACTS, 'journey-budgets.png'), fullPage: true });

    const lines = await db<{ month: string; category: string; planned: string }>(
      `SELECT CASE WHEN budget_month = date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 'this' ELSE 'next' END AS month,
              category, planned_value::text AS planned
         FROM budget_lines WHERE workspace_id = $1
          AND budget_month IN (date_trunc('month', now() AT TIME ZONE 'UTC')::date,
                               (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month')::date)
        ORDER BY 1 DESC, 2`,
      [workspaceId],
    );
    const expected = BUDGET.map(([category, planned]) => ({ category, planned: Number(planned) }));
    const of = (month: string) =>
      lines
        .filter((l) => l.month === month)
        .map((l) => ({ category: l.category, planned: Number(l.planned) }));
    expect(of('this')).toEqual(expected);
    expect(of('next')).toEqual(expected);
  });

  it('reads this month’s spending against budget on Home, as the database holds it', async () => {
    const { page } = sam;
    await go(page, 'home', 'Home');
    const budget = page.getByRole('region', { name: 'Spending against budget this month' });
    await budget.getByRole('img', { name: /^Spending against budget chart/ }).waitFor();
    // What the database holds for this month: spending per category, and the budget of each.
    const held = await db<{ category: string; spent: string; planned: string | null }>(
      `SELECT e.category, sum(-e.amount)::text AS spent, b.planned_value::text AS planned
         FROM ledger_entries e
         LEFT JOIN budget_lines b ON b.workspace_id = e.workspace_id AND b.category = e.category
          AND b.direction = 'spend' AND b.budget_month = date_trunc('month', now() AT TIME ZONE 'UTC')::date
        WHERE e.workspace_id = $1 AND e.kind = 'spend' AND e.category IS NOT NULL
          AND e.ts >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        GROUP BY e.category, b.planned_value
        ORDER BY sum(-e.amount) DESC`,
      [workspaceId],
    );
    expect(held.map((r) => r.category)).toEqual(['rent', 'groceries', 'eating out']);
    const expected = held.map((r) => {
      const spent = Number(r.spent);
      const planned = r.planned === null ? null : Number(r.planned);
      return planned === null
        ? `${r.category}—${usd.format(spent)}—`
        : `${r.category}${usd.format(planned)}${usd.format(spent)}${usd.format(planned - spent)}`;
    });
    const table = budget.getByRole('table');
    await expect
      .poll(async () => (await table.locator('tbody tr').allTextContents()).map((t) => t.trim()))
      .toEqual(expected);
    // e.g. rent: $500.00 planned, $417.87 spent, $82.13 left.
    expect(expected[0]).toBe('rent$500.00$417.87$82.13');
    await checked(page, 'home');
    await page.screenshot({ path: join(ARTIFACTS, 'journey-home.png'), fullPage: true });
  });

  it('saw no console error and no CSP violation on any page', () => {
    expect(sam.problems).toEqual([]);
  });
});
