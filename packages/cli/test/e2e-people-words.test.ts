import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminQuery, migratedPostgres } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cli, loginWithoutTty, openSandbox, type Sandbox } from './e2e/harness.js';

/**
 * Words written for an agent that a person must never read from the CLI (issue 41): the API's instructions say
 * "Tell the user …", "Show the user …" to agents; the CLI speaks to the person at the terminal.
 */
const AGENT_WORDING = /tell the user|ask the user|show the user|the agent\b|relay (?:this|it) to/i;

// Issue 41, "no agent wording in any CLI text": the commands' common outputs, answers and refusals, human and
// --json alike, hold no instruction meant for an agent; the stale-rate report among them says it in a person's words.
describe('expense CLI outputs in a person’s words', () => {
  let sandbox: Sandbox;
  let database: { url: string; drop(): Promise<void> };
  const seen: { args: string[]; text: string }[] = [];
  const run = async (args: string[], input?: string): Promise<CliResult> => {
    const result = await cli(args, sandbox.env, input);
    seen.push({ args, text: `${result.stdout}\n${result.stderr}` });
    return result;
  };
  const expectOk = async (args: string[]) => {
    const result = await run(args);
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result;
  };

  beforeAll(async () => {
    database = await migratedPostgres();
    sandbox = await openSandbox('expense-cli-people-words-', { serverEnv: { DATABASE_URL: database.url } });
    const login = await loginWithoutTty(sandbox.env, sandbox.server.outbox, 'people@example.com', new Set(), [
      '--insecure-storage',
    ]);
    seen.push({ args: ['login'], text: `${login.stdout}\n${login.stderr}` });
    expect(login.code, login.stderr).toBe(0);
    // An October with a USD entry converted into EUR at a rate carried forward from 1 October: stale.
    await adminQuery(
      `INSERT INTO public.fx_rates_daily (base_currency, quote_currency, calendar_date, rate, source_rate_date)
       VALUES ('USD', 'EUR', DATE '2026-10-20', 0.9, DATE '2026-10-01')`,
      [],
      database.url,
    );
  });
  afterAll(async () => {
    await sandbox?.close();
    await database?.drop();
  });

  it('says nothing meant for an agent across the common commands, answers and refusals', async () => {
    await expectOk(['whoami']);
    await expectOk(['workspaces', 'create', 'Words']);
    await expectOk(['use', 'Words']);
    await expectOk(['workspaces', 'list']);
    await expectOk(['schema']);
    await expectOk(['schema', 'ledger_entries']);
    await expectOk(['exec', '--yes', "UPDATE workspace_settings SET reporting_currency = 'EUR'"]);
    const insert =
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, note) VALUES ('2026-10-12', 'checking', -54.2, 'EUR', 'spend', 'groceries', 'Weekly shop'), ('2026-10-20', 'card', -20, 'USD', 'spend', 'books', 'Bookshop')";
    expect((await run(['exec', insert])).code).toBe(3); // approval needed, nothing sent
    await expectOk(['exec', '--dry-run', insert]);
    await expectOk(['exec', '--yes', insert]);
    await expectOk([
      '--json',
      'exec',
      '--yes',
      "UPDATE ledger_entries SET note = 'Shop' WHERE note = 'Weekly shop'",
    ]);
    await expectOk([
      'sql',
      '--yes',
      "UPDATE ledger_entries SET note = 'Weekly shop' WHERE note = 'Shop'; SELECT 1 AS one",
    ]);
    await expectOk(['query', 'SELECT category, amount FROM ledger_entries ORDER BY amount']);
    await expectOk(['--json', 'query', 'SELECT category FROM ledger_entries']);

    const file = join(sandbox.dir.path, 'october.csv');
    await writeFile(
      file,
      'ts,account_id,amount,currency\n2026-10-21,checking,-3,EUR\n2026-10-22,checking,-4,EUR\n',
    );
    await expectOk(['import', file, '--dry-run']);
    await expectOk(['import', file, '--yes']);
    await expectOk(['import', file, '--yes']); // nothing new

    for (const report of ['spending', 'budget', 'balances', 'trend'])
      await expectOk(['report', report, '--month', '2026-10']);
    await expectOk(['--json', 'report', 'spending', '--month', '2026-10']);

    const history = await expectOk(['history']);
    const shortId = /^([0-9a-f]{8,12})\s/m.exec(history.stdout)?.[1];
    expect(shortId, history.stdout).toBeDefined();
    expect((await run(['revert', shortId!])).code).toBe(3); // the dry run is shown, approval needed
    await expectOk(['revert', '--yes', shortId!]);
    await expectOk(['categories', 'rename', 'books', 'Books', '--yes']);
    await expectOk(['members', 'list']);
    await expectOk(['invitations', 'list']);
    await expectOk(['keys', 'list']);

    // Refusals: the guard's, wrong usage, an unknown workspace, a change no id names.
    expect((await run(['query', 'SELECT lower(note) FROM ledger_entries'])).code).toBe(5);
    expect((await run(['exec', '--yes', 'SELECT 1'])).code).toBe(2);
    expect((await run(['--workspace', 'Nowhere', 'query', 'SELECT 1 AS one'])).code).not.toBe(0);
    expect((await run(['revert', '--yes', 'ffffffff'])).code).not.toBe(0);
    expect((await run(['exec', '--yes', "INSERT INTO ledger_entries (ts) VALUES ('x')"])).code).not.toBe(0);

    await expectOk(['logout']);
    expect((await run(['whoami'])).code).toBe(4);

    const agentWords = seen
      .map(({ args, text }) => ({ args: args.join(' '), said: text.match(AGENT_WORDING)?.[0] }))
      .filter((s) => s.said !== undefined);
    expect(agentWords).toEqual([]);
    expect(seen.length).toBeGreaterThan(30);
  });

  it('says that a report’s exchange rates are old in a person’s words', () => {
    const report = seen.find((s) => s.args.join(' ') === 'report spending --month 2026-10');
    expect(report?.text).toMatch(/stale|old/i);
    expect(report?.text).toContain('2026-10-01');
    expect(report?.text).not.toMatch(AGENT_WORDING);
  });
});
