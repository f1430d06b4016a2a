// A partner's console (issue 41), in a real headless Chromium: a member of two of the owner's workspaces with none
// selected chooses one from the page's "Choose a workspace" switcher, and the pages show that workspace's data;
// Reports over old exchange rates says so in a person's words (no instruction meant for an agent); and a change
// written with the CLI is named in Activity by the short id the CLI printed, which `expense revert` takes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { call, type Response } from '@expense/test-kit';
import { API_PREFIX, API_ROUTES } from '@expense/wire';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWorkspace, createUser, type TestUser } from '../../sql/test/setup.js';
import {
  AGENT_WORDING,
  axeClean,
  browserAvailable,
  CLI_BIN,
  type ConsoleServer,
  go,
  headerWorkspace,
  inPeoplesWords,
  type Person,
  startConsole,
} from './browser-kit.js';

/** What a person must not read on a page: the kit's agent wording, and any talk of "the user" or an agent. */
const NOT_FOR_PEOPLE = /tell the user|the user\b|\bagents?\b/i;

const STORAGE = 'expense-console-workspace';

describe.runIf(browserAvailable())('a partner’s console in Chromium', { timeout: 120_000 }, () => {
  let server: ConsoleServer;
  let owner: TestUser;
  let partner: TestUser;
  let household: string;
  let holiday: string;
  let sam: Person;

  /** A call's answer, which must be a success: its body. */
  const ok = (res: Response) => {
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };
  const inWorkspace = (workspace: string) => ({ 'x-workspace-id': workspace });

  /** The page's whole text, whitespace collapsed. */
  const bodyText = async (page: Page) =>
    ((await page.locator('body').textContent()) ?? '').replace(/\s+/g, ' ');

  /** Transactions of October 2026 (the page opens on this month). */
  async function showOctober(page: Page): Promise<void> {
    await page.getByLabel('Month', { exact: true }).fill('2026-10');
    await page.getByRole('button', { name: 'Show', exact: true }).click();
  }

  /** The CLI (built) with the partner's key, in `workspace`. */
  async function cli(args: string[], workspace: string) {
    const home = await server.browsers.tempDir('expense-cli-home-');
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI_BIN, ...args], {
        env: {
          PATH: process.env.PATH,
          HOME: home,
          XDG_CONFIG_HOME: home,
          XDG_RUNTIME_DIR: home,
          EXPENSE_API_URL: `${server.origin}${API_PREFIX}`,
          EXPENSE_API_KEY: partner.apiKey,
          EXPENSE_WORKSPACE: workspace,
          NO_COLOR: '1',
        },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  }

  beforeAll(async () => {
    // The owner's set-up below and the CLI's calls are many requests a second: limits nothing here reaches.
    server = await startConsole({ config: { ratePerSecond: 100_000, ratePerDay: 1_000_000 } });
    owner = await createUser(server.db, 'owner');
    partner = await createUser(server.db, 'partner');
    household = await addWorkspace(server.db, owner.userId, 'Household');
    holiday = await addWorkspace(server.db, owner.userId, 'Holiday');
    // Household reports in EUR; its USD book of 20 October converts at a rate carried forward from 1 October.
    await server.db.query(
      `INSERT INTO public.fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date)
       VALUES ('USD', 'EUR', DATE '2026-10-20', 0.9, DATE '2026-10-01')`,
    );
    ok(
      await call(server, API_ROUTES.sqlScript, {
        key: owner.apiKey,
        headers: inWorkspace(household),
        body: {
          sql: `UPDATE workspace_settings SET reporting_currency = 'EUR', timezone = 'Europe/Berlin';
        INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES
        (TIMESTAMPTZ '2026-10-12 12:00:00+00', 'checking', -54.20, 'EUR', 'spend', 'groceries', 'Weekly shop'),
        (TIMESTAMPTZ '2026-10-20 12:00:00+00', 'card', -20, 'USD', 'spend', 'books', 'Bookshop in New York')`,
        },
      }),
    );
    ok(
      await call(server, API_ROUTES.sqlExecute, {
        key: owner.apiKey,
        headers: inWorkspace(holiday),
        body: {
          sql: `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES
        (TIMESTAMPTZ '2026-10-15 12:00:00+00', 'cash', -38, 'EUR', 'spend', 'travel', 'Ferry tickets')`,
        },
      }),
    );
    for (const workspaceId of [household, holiday]) {
      const params = { workspaceId };
      ok(
        await call(server, API_ROUTES.addMember, {
          key: owner.apiKey,
          params,
          body: { email: partner.email },
        }),
      );
      ok(await call(server, API_ROUTES.acceptInvitation, { key: partner.apiKey, params }));
    }
  }, 120_000);
  afterAll(() => server?.close());

  it('a member with no workspace selected chooses one on the page, and the pages show its data', async () => {
    sam = await server.newPerson();
    await server.signIn(sam, partner.email);
    const { page } = sam;
    await expect.poll(() => headerWorkspace(page)).not.toBe('');
    // The choice is cleared in another tab of the same browser: this tab follows, and has none selected.
    const other = await sam.context.newPage();
    await other.goto(`${server.origin}/console/#/account`);
    await other.evaluate(`localStorage.removeItem(${JSON.stringify(STORAGE)})`);
    await other.close();
    const choose = page.getByRole('combobox', { name: 'Choose a workspace' });
    await choose.waitFor();
    expect(await choose.locator('option').allTextContents()).toEqual([
      '(choose one)',
      'Household',
      'Holiday',
    ]);
    await axeClean(page, 'Home with no workspace selected');

    await choose.selectOption({ label: 'Holiday' });
    await expect.poll(() => headerWorkspace(page)).toBe('Holiday');
    expect(await page.evaluate(`localStorage.getItem(${JSON.stringify(STORAGE)})`)).toBe(holiday);
    await page.getByText('Ferry tickets').first().waitFor();
    expect(await page.getByText('Weekly shop').count()).toBe(0);
    await go(page, 'transactions', 'Transactions');
    await showOctober(page);
    await page
      .getByRole('cell', { name: /Ferry tickets/ })
      .first()
      .waitFor();
    expect(await page.getByText('Weekly shop').count()).toBe(0);

    // The header's switcher moves every page to the other workspace.
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: 'Household' });
    await expect.poll(() => headerWorkspace(page)).toBe('Household');
    await showOctober(page);
    await page
      .getByRole('cell', { name: /Weekly shop/ })
      .first()
      .waitFor();
    expect(await page.getByText('Ferry tickets').count()).toBe(0);
  });

  it('says in a person’s words that the exchange rates of a report are old', async () => {
    const { page } = sam;
    await go(page, 'reports', 'Reports');
    await page.getByRole('textbox', { name: 'From', exact: true }).fill('2026-10-01');
    await page.getByRole('textbox', { name: 'To', exact: true }).fill('2026-10-31');
    await page.getByRole('combobox', { name: 'Report' }).selectOption('spend_by_category');
    await page.getByRole('button', { name: 'Show report' }).click();
    const region = page.getByRole('region', { name: 'Spend by category report' });
    await region.getByRole('cell', { name: 'books' }).waitFor();
    // 20 USD at the rate of 1 October (0.9), more than a week before the day it converted.
    await region.getByRole('cell', { name: '€18.00' }).waitFor();
    await region
      .getByText(
        'The exchange rates are more than a week old, so amounts converted from other currencies may be off.',
      )
      .waitFor();
    await region.getByText(/Newest exchange rate used: Oct 1, 2026\./).waitFor();
    const text = await bodyText(page);
    expect(text.match(NOT_FOR_PEOPLE)?.[0], text).toBeUndefined();
    expect(text.match(AGENT_WORDING)?.[0]).toBeUndefined();
    await inPeoplesWords(page, 'Reports with old rates');
    await axeClean(page, 'Reports with old rates');
  });

  it('names a change the CLI wrote by the short id the CLI printed, which expense revert takes', async () => {
    const written = await cli(
      [
        'exec',
        '--yes',
        "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES (TIMESTAMPTZ '2026-10-22 12:00:00+00', 'cash', -7.5, 'EUR', 'spend', 'coffee', 'Cafe with Sam')",
      ],
      household,
    );
    expect(written.code, written.stderr).toBe(0);
    const shortId = /Committed as change ([0-9a-f]{8,12}) \(undo: expense revert \1\)/.exec(
      written.stderr,
    )?.[1];
    expect(shortId, written.stderr).toBeDefined();

    const { page } = sam;
    await go(page, 'activity', 'Activity');
    const row = page.getByRole('cell', { name: new RegExp(`· change ${shortId}\\b`) });
    await row.waitFor();
    expect(await row.textContent()).toContain('Cafe with Sam');

    const undone = await cli(['revert', '--yes', shortId!], household);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stderr).toContain(`Undid change ${shortId}`);
    const entries = ok(
      await call(server, API_ROUTES.sqlQuery, {
        key: partner.apiKey,
        headers: inWorkspace(household),
        body: { sql: "SELECT count(*)::int AS n FROM ledger_entries WHERE note = 'Cafe with Sam'" },
      }),
    );
    expect(entries.data.statements[0].rows).toEqual([{ n: 0 }]);
  });

  it('saw no console error and no CSP violation', () => {
    expect(server.browsers.people.flatMap((p) => p.problems)).toEqual([]);
  });
});
