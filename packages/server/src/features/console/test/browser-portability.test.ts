// The console's export and deletions in a real headless Chromium (issue 40): a workspace downloaded as JSON and as
// a CSV zip through the console's proxy (the files parsed), a workspace deleted after its name is typed (a wrong
// name leaves the button off; a rename meanwhile is refused by the API and said in a person's words; the database
// keeps no row of it), and the account deleted after its address is typed: the sign-in page says so, the old
// session cookie is refused, and the workspace it shared with another owner stays. axe-core and 390 px on each page.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { call } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { unzipSync } from 'fflate';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  axeClean,
  browserAvailable,
  type ConsoleServer,
  fitsNarrow,
  go,
  headerWorkspace,
  type Person,
  startConsole,
} from './browser-kit.js';

const NAME = 'Ménage 2026';
const DAY = /\d{4}-\d{2}-\d{2}/.source;

describe.runIf(browserAvailable())('console: export and deletion in Chromium', { timeout: 180_000 }, () => {
  let server: ConsoleServer;
  let origin: string;
  let alice: Person;
  let bob: Person;

  beforeAll(async () => {
    server = await startConsole();
    origin = server.origin;
  }, 120_000);
  afterAll(() => server?.close());

  /** One statement on the test's database as its superuser (row-level security does not apply). */
  const db = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    server.adminQuery<R>(sql, params);
  const signIn = (person: Person, email: string) => server.signIn(person, email);

  async function createWorkspace(page: Page, name: string): Promise<void> {
    await go(page, 'workspaces', 'Workspaces');
    await page.getByRole('textbox', { name: 'Workspace name' }).fill(name);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Workspace “${name}” created and selected.` })
      .waitFor();
  }

  async function runWrite(page: Page, sql: string): Promise<void> {
    await go(page, 'sql', 'SQL');
    await page.getByRole('textbox', { name: 'SQL' }).fill(sql);
    await page.getByRole('button', { name: 'Dry run write' }).click();
    await page.getByRole('button', { name: 'Confirm write' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: the change is in Activity' }).waitFor();
  }

  /** Clicks a download button and waits for the file the browser saved. */
  async function download(page: Page, button: string): Promise<{ file: Download; bytes: Buffer }> {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: button }).click(),
    ]);
    const path = await file.path();
    return { file, bytes: await readFile(path) };
  }

  /** Axe-core clean and no sideways scrolling, at 1280 and at 390 px; screenshots `<shot>-<width>.png`. */
  async function checkPage(page: Page, what: string, shot: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await axeClean(page, `${what} at ${width} px`);
      await fitsNarrow(page);
      await page.screenshot({ path: join(ARTIFACTS, `${shot}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1200, height: 900 });
  }

  /** The tables of the database that have a workspace_id column. */
  async function workspaceTables(): Promise<string[]> {
    const rows = await db<{ t: string }>(
      `SELECT DISTINCT format('%I.%I', c.table_schema, c.table_name) AS t
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
       WHERE c.column_name = 'workspace_id' AND t.table_type = 'BASE TABLE'
         AND c.table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    return rows.map((r) => r.t);
  }

  let workspaceId: string;

  it('downloads the selected workspace as JSON and as a CSV zip', async () => {
    alice = await server.newPerson();
    await signIn(alice, 'alice@example.com');
    await createWorkspace(alice.page, NAME);
    workspaceId = (await alice.page.evaluate("localStorage.getItem('expense-console-workspace')")) as string;
    await runWrite(
      alice.page,
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES
 (TIMESTAMPTZ '2026-08-03 12:00:00+00', 'checking', -12.35, 'USD', 'spend', 'groceries', 'market'),
 (TIMESTAMPTZ '2026-08-05 09:30:00+00', 'checking', 2500, 'USD', 'income', 'salary', 'august pay'),
 (TIMESTAMPTZ '2026-08-10 18:00:00+00', 'card', -30, 'USD', 'spend', 'restaurants', 'dinner')`,
    );
    await runWrite(
      alice.page,
      `INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value)
 VALUES (DATE '2026-08-01', 'spend', 'groceries', 'USD', 300)`,
    );
    const { page } = alice;
    await go(page, 'workspaces', 'Workspaces');
    await page.getByRole('heading', { name: `Export “${NAME}”` }).waitFor();

    // JSON: the whole export document, named after the workspace and the day.
    const json = await download(page, `Download “${NAME}” as JSON`);
    expect(json.file.suggestedFilename()).toMatch(new RegExp(`^expense-${NAME}-${DAY}\\.json$`));
    const document = JSON.parse(json.bytes.toString('utf8'));
    expect(document).toMatchObject({
      format: 'expense-export',
      version: 1,
      workspace: { workspaceId, name: NAME },
      end: { counts: { ledger_entries: 3, budget_lines: 1 }, changedDuringExport: false },
    });
    expect(
      document.ledger_entries.map((e: { note: string; amount: string }) => [e.note, Number(e.amount)]).sort(),
    ).toEqual([
      ['august pay', 2500],
      ['dinner', -30],
      ['market', -12.35],
    ]);
    expect(document.changes).toHaveLength(2);
    await page
      .getByRole('status')
      .filter({ hasText: new RegExp(`^Exported “${NAME}”: expense-${NAME}-${DAY}\\.json \\([\\d.]+ kB\\)`) })
      .first()
      .waitFor();

    // CSV: a zip with the manifest and one file per relation.
    const csv = await download(page, `Download “${NAME}” as CSV (zip)`);
    expect(csv.file.suggestedFilename()).toMatch(new RegExp(`^expense-${NAME}-${DAY}\\.zip$`));
    const files = unzipSync(new Uint8Array(csv.bytes));
    expect(Object.keys(files)).toContain('manifest.json');
    const manifest = JSON.parse(Buffer.from(files['manifest.json'] as Uint8Array).toString('utf8'));
    expect(manifest).toMatchObject({ format: 'expense-export', workspace: { workspaceId, name: NAME } });
    const ledger = Buffer.from(files['ledger_entries.csv'] as Uint8Array).toString('utf8');
    expect(ledger.trim().split('\r\n')).toHaveLength(4); // the header and three rows
    expect(ledger).toContain('august pay');

    // The proxy passes the export on as the API streams it (no Content-Length: it did not read it whole first),
    // authorised by the session cookie alone.
    const session = (await alice.context.cookies()).find((c) => c.name === 'expense_console');
    const streamed = await fetch(`${origin}/console/api/workspaces/${workspaceId}/export`, {
      headers: { cookie: `expense_console=${session?.value}` },
    });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(streamed.headers.get('content-length')).toBeNull();
    expect(streamed.headers.get('content-disposition')).toMatch(/^attachment; filename="expense-/);
    expect(streamed.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(((await streamed.json()) as { ledger_entries: unknown[] }).ledger_entries).toHaveLength(3);

    // A download the browser abandons mid-stream ends the API's export and gives back its in-flight place: after
    // more abandoned downloads than the key's places (2), a whole export still answers.
    await db(
      `INSERT INTO public.ledger_entries (workspace_id, ts, account_id, amount, currency, kind, note)
       SELECT $1, TIMESTAMPTZ '2026-01-01 00:00:00+00' + make_interval(mins => g), 'checking', -1, 'USD', 'spend',
              repeat('x', 200)
       FROM generate_series(1, 20000) g`,
      [workspaceId],
    );
    const exportOf = (signal?: AbortSignal) =>
      fetch(`${origin}/console/api/workspaces/${workspaceId}/export`, {
        headers: { cookie: `expense_console=${session?.value}` },
        signal,
      });
    /** An export's answer once the key has a place for it (a place still held answers 429 until it is given back). */
    const admitted = async (signal?: AbortSignal) => {
      let answer: Response | undefined;
      await expect
        .poll(
          async () => {
            answer = await exportOf(signal);
            return answer.status;
          },
          { timeout: 30_000 },
        )
        .toBe(200);
      return answer as Response;
    };
    for (let i = 0; i < 3; i++) {
      const abort = new AbortController();
      const answer = await admitted(abort.signal);
      const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
      expect((await reader.read()).done).toBe(false);
      abort.abort();
      await reader.read().catch(() => undefined);
    }
    const whole = (await (await admitted()).json()) as { end: { counts: { ledger_entries: number } } };
    expect(whole.end.counts.ledger_entries).toBe(20_003);
    await checkPage(page, 'Workspaces with export and deletion', 'portability-workspace');
  });

  it('deletes a workspace once its name is typed, and moves to another workspace', async () => {
    const { page } = alice;
    await createWorkspace(page, 'Holiday');
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: NAME });
    await expect.poll(() => headerWorkspace(page)).toBe(NAME);
    const section = page.getByRole('region', { name: `Delete “${NAME}”` });
    await section.getByText('This is final: there is no undo, and no copy is kept.').waitFor();
    // The export is offered first, just above.
    await section.getByText('Download an export first (above) if you may want the data again.').waitFor();
    await page.getByRole('button', { name: `Download “${NAME}” as JSON` }).waitFor();
    const field = section.getByRole('textbox', { name: `Type the workspace’s name, “${NAME}”, to confirm` });
    const button = section.getByRole('button', { name: 'Delete this workspace for good' });

    // A wrong name: the button stays off, and Enter in the field sends nothing.
    expect(await button.isDisabled()).toBe(true);
    await field.fill('ménage 2026');
    expect(await button.isDisabled()).toBe(true);
    await field.press('Enter');
    await field.fill(NAME);
    // The page enables the button when it renders the typed name: wait for that render, not for a time.
    await expect.poll(() => button.isEnabled()).toBe(true);
    expect(
      await db('SELECT 1 FROM expense_internal.workspaces WHERE workspace_id = $1', [workspaceId]),
    ).toHaveLength(1);

    // Renamed meanwhile (another tab, another owner): the API refuses, the page says it in a person's words.
    const renamed = await page.evaluate(`fetch('/console/api/workspaces/${workspaceId}', {
      method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ménage' }),
    }).then((r) => r.status)`);
    expect(renamed).toBe(200);
    await button.click();
    const refusal = page.getByRole('alert');
    await refusal.filter({ hasText: 'This workspace was renamed meanwhile; nothing was deleted.' }).waitFor();
    expect(await refusal.textContent()).toContain("Hint: Type the workspace's name exactly as shown");
    expect(await refusal.textContent()).not.toMatch(/confirmName|\/v1\/|DELETE|\b400\b/);
    const again = page.getByRole('region', { name: 'Delete “Ménage”' });
    const newField = again.getByRole('textbox', { name: 'Type the workspace’s name, “Ménage”, to confirm' });
    await newField.waitFor();
    await expect
      .poll(() => again.getByRole('button', { name: 'Delete this workspace for good' }).isDisabled())
      .toBe(true);
    await checkPage(page, 'Workspaces after a refused deletion', 'portability-renamed');

    await newField.fill('Ménage');
    await again.getByRole('button', { name: 'Delete this workspace for good' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Workspace “Ménage” was deleted, with all its data and history.' })
      .waitFor();
    await expect.poll(() => headerWorkspace(page)).toBe('Holiday');
    expect(await page.evaluate("localStorage.getItem('expense-console-workspace')")).not.toBe(workspaceId);
    // The list is drawn again once the deletion is answered: wait for that drawing, not for a time.
    await expect.poll(() => page.getByRole('cell', { name: 'Ménage', exact: true }).count()).toBe(0);
    // Nothing of it is left in the database: no table holds a row of it.
    const tables = await workspaceTables();
    expect(tables).toContain('public.ledger_entries');
    for (const table of tables) {
      const left = await db(`SELECT 1 FROM ${table} WHERE workspace_id::text = $1`, [workspaceId]);
      expect(left, table).toEqual([]);
    }
    expect(
      await db('SELECT 1 FROM expense_internal.workspaces WHERE workspace_id = $1', [workspaceId]),
    ).toEqual([]);
  });

  it('deletes the account once its address is typed: signed out, the old session refused, a shared workspace stays', async () => {
    const { page } = alice;
    // "Shared": alice and bob own it; "Holiday": alice alone.
    await createWorkspace(page, 'Shared');
    const shared = (await page.evaluate("localStorage.getItem('expense-console-workspace')")) as string;
    bob = await server.newPerson();
    await signIn(bob, 'bob@example.com');
    await go(page, 'members', 'Members');
    await page.getByRole('textbox', { name: 'E-mail address to invite' }).fill('bob@example.com');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('cell', { name: 'invited (pending)' }).waitFor();
    await bob.page.reload();
    await go(bob.page, 'members', 'Members');
    await bob.page.getByRole('button', { name: 'Accept Shared' }).click();
    await bob.page.getByRole('status').filter({ hasText: 'Joined “Shared”.' }).waitFor();
    // A member can export but does not see the deletion.
    await go(bob.page, 'workspaces', 'Workspaces');
    await bob.page.getByRole('button', { name: 'Download “Shared” as JSON' }).waitFor();
    expect(await bob.page.getByRole('region', { name: 'Delete “Shared”' }).count()).toBe(0);
    expect(await bob.page.getByRole('button', { name: 'Delete this workspace for good' }).count()).toBe(0);
    // There is no route that makes a member an owner yet: as the database's superuser.
    await db(
      `UPDATE expense_internal.workspace_members SET role = 'owner'
       WHERE workspace_id = $1 AND user_id = (SELECT user_id FROM expense_internal.users WHERE email = 'bob@example.com')`,
      [shared],
    );
    const [aliceRow] = await db<{ user_id: string }>(
      "SELECT user_id FROM expense_internal.users WHERE email = 'alice@example.com'",
    );
    const holiday = (
      await db<{ workspace_id: string }>(
        "SELECT workspace_id FROM expense_internal.workspaces WHERE name = 'Holiday'",
      )
    )[0]?.workspace_id;

    await go(page, 'account', 'Account');
    const section = page.getByRole('region', { name: 'Delete your account' });
    await section
      .getByText('the workspaces you alone own, with all their data and history: “Holiday”.')
      .waitFor();
    await section
      .getByText(
        'What stays: the workspaces with another owner, and those you are a member of, with their data and history, for the people in them: “Shared”. You leave them;',
      )
      .waitFor();
    await section.getByText('This is final: there is no undo, and no copy is kept.').waitFor();
    for (const name of ['Holiday', 'Shared']) {
      await section.getByRole('button', { name: `Download “${name}” as JSON` }).waitFor();
    }
    const holidayExport = await download(page, 'Download “Holiday” as CSV (zip)');
    expect(Object.keys(unzipSync(new Uint8Array(holidayExport.bytes)))).toContain('manifest.json');
    await checkPage(page, 'Account', 'portability-account');

    const field = section.getByRole('textbox', {
      name: 'Type your e-mail address, alice@example.com, to confirm',
    });
    const button = section.getByRole('button', { name: 'Delete my account for good' });
    expect(await button.isDisabled()).toBe(true);
    await field.fill('alice@example.org');
    expect(await button.isDisabled()).toBe(true);
    await field.fill(' Alice@Example.com ');
    await expect.poll(() => button.isEnabled()).toBe(true);

    const cookie = (await alice.context.cookies()).find((c) => c.name === 'expense_console');
    expect(cookie?.value).toMatch(/^exp_/);
    await button.click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    const confirmation = page.getByRole('status');
    expect(await confirmation.textContent()).toContain('Your account has been deleted');
    expect(page.url()).toBe(`${origin}/console/sign-in`);
    await checkPage(page, 'Sign-in after the account was deleted', 'portability-signed-out');
    // The notice is said once; the browser holds no session cookie any more.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(await page.getByText('Your account has been deleted').count()).toBe(0);
    expect((await alice.context.cookies()).map((c) => c.name)).not.toContain('expense_console');

    // The old session cookie is refused: by the console's proxy and as a key on the API.
    const withCookie = { headers: { cookie: `expense_console=${cookie?.value}` } };
    expect((await fetch(`${origin}/console/api/me`, withCookie)).status).toBe(401);
    const shell = await fetch(`${origin}/console/`, { ...withCookie, redirect: 'manual' });
    expect(shell.status).toBe(303);
    expect(shell.headers.get('location')).toMatch(/\/console\/sign-in\?return_to=/);
    const asKey = await call(server, API_ROUTES.me, { key: cookie?.value });
    expect(asKey.status).toBe(401);
    // The notice cannot be had from another site, nor by a sign-out of a live session.
    const forged = await fetch(`${origin}/console/sign-out`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'reason=account_deleted',
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);

    // In the database: no user, no key, no membership of alice; Holiday is gone; Shared stays, bob its owner.
    expect(await db('SELECT 1 FROM expense_internal.users WHERE user_id = $1', [aliceRow?.user_id])).toEqual(
      [],
    );
    expect(
      await db('SELECT 1 FROM expense_internal.api_keys WHERE user_id = $1', [aliceRow?.user_id]),
    ).toEqual([]);
    expect(
      await db('SELECT 1 FROM expense_internal.workspace_members WHERE user_id = $1', [aliceRow?.user_id]),
    ).toEqual([]);
    expect(await db('SELECT 1 FROM expense_internal.workspaces WHERE workspace_id = $1', [holiday])).toEqual(
      [],
    );
    expect(
      await db<{ email: string; role: string }>(
        `SELECT u.email, m.role FROM expense_internal.workspace_members m JOIN expense_internal.users u USING (user_id)
         WHERE m.workspace_id = $1`,
        [shared],
      ),
    ).toEqual([{ email: 'bob@example.com', role: 'owner' }]);
    // Bob's console goes on with Shared.
    await bob.page.reload();
    await expect.poll(() => headerWorkspace(bob.page)).toBe('Shared');
    const signInAfter = (await bob.page.evaluate(`fetch('/console/sign-out', {
      method: 'POST', body: new URLSearchParams({ reason: 'account_deleted' }),
    }).then((r) => r.text())`)) as string;
    expect(signInAfter).toContain('<h1>Sign in</h1>');
    expect(signInAfter).not.toContain('Your account has been deleted');

    for (const person of server.browsers.people) expect(person.problems).toEqual([]);
  });
});
