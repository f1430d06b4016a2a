import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { bashArgs } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

const BANKS = resolve(import.meta.dirname, '../../../../test/fixtures/banks');

// gh habits against the built server: completion, config and profiles, a raw `api`, fixed reports.
describe('expense completion, config, profiles, api and report', () => {
  let sandbox: Sandbox;
  /** The sandbox without EXPENSE_API_URL: the URL comes from the profile, as on a user's machine. */
  let home: NodeJS.ProcessEnv;
  const run = (args: string[], env?: NodeJS.ProcessEnv): Promise<CliResult> => cli(args, env ?? sandbox.env);

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-gh-', { database: 'postgres' });
    const { EXPENSE_API_URL: _, ...rest } = sandbox.env;
    home = rest;
    const login = await loginWithoutTty(sandbox.env, sandbox.server.outbox, 'gh@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Reports'])).code).toBe(0);
    expect((await run(['use', 'Reports'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('completion bash completes commands, options and their values; zsh and fish scripts load the same tree', async () => {
    const bash = await run(['completion', 'bash']);
    expect(bash.code).toBe(0);
    const script = join(sandbox.dir.path, 'expense.bash');
    await writeFile(script, bash.stdout);
    const complete = (...words: string[]) => {
      const probe = `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${
        words.length - 1
      }; _expense; echo "\${COMPREPLY[*]}"`;
      const r = spawnSync('bash', bashArgs(probe), { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      return r.stdout.trim();
    };
    expect(complete('expense', 'imp')).toBe('import');
    expect(complete('expense', 'import', '--pre')).toBe('--preset');
    expect(complete('expense', 'import', 'f.csv', '--preset', 'mo')).toBe('monzo');
    expect(complete('expense', 'import', 'f.csv', '--account', 'x', '--int')).toBe('--into');
    expect(complete('expense', 'workspaces', 'cr')).toBe('create');
    expect(complete('expense', 'report', 'b')).toBe('budget balances');
    expect(complete('expense', '--json', 'query', '--for')).toBe('--format');
    expect(complete('expense', 'query', '--format', '')).toBe('table json csv');
    const zsh = await run(['completion', 'zsh']);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _expense expense');
    const fish = await run(['completion', 'fish']);
    expect(fish.stdout).toContain("complete -c expense -f -n '__fish_use_subcommand' -a import");
    expect(fish.stdout).toContain(
      "-l preset -x -a 'chase-checking chase-card wells-fargo capital-one bofa amex barclays monzo revolut n26 ing-de sparkasse dkb commerzbank paypal generic-eu generic-us'",
    );
    expect((await run(['completion', 'tcsh'])).code).toBe(2);
  });

  it("config get|set|list reads and stores the profile's settings; a bad URL is wrong usage", async () => {
    expect((await run(['config', 'get', 'api_url'], home)).stdout.trim()).toBe(sandbox.server.apiUrl);
    const bad = await run(['config', 'set', 'api_url', 'not a url'], home);
    expect(bad.code).toBe(2);
    const root = await run(['config', 'set', 'api_url', new URL(sandbox.server.apiUrl).origin], home);
    expect(root.code).toBe(2);
    expect(root.stderr).toContain(`${new URL(sandbox.server.apiUrl).origin}/v1`);
    expect((await run(['config', 'set', 'api_url', `${sandbox.server.apiUrl}/`], home)).code).toBe(0);
    const list = await run(['config', 'list'], home);
    expect(list.stdout).toContain(`api_url=${sandbox.server.apiUrl}\n`);
    expect(list.stdout).toMatch(/workspace=\S+/);
    expect((await run(['config', 'get', 'colour'], home)).code).toBe(2);
  });

  it('a new profile takes the URL in use; profiles lists them, marking the current one', async () => {
    expect((await run(['--profile', 'work', 'config', 'get', 'api_url'], home)).stdout.trim()).toBe(
      sandbox.server.apiUrl,
    );
    const added = await run(['profiles', 'add', 'travel'], home);
    expect(added.code).toBe(0);
    expect(added.stderr).toContain(`Profile travel uses ${sandbox.server.apiUrl}`);
    const login = await loginWithoutTty(home, sandbox.server.outbox, 'work@example.com', new Set(), [
      '--profile',
      'work',
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    const list = await run(['--profile', 'work', 'profiles'], home);
    expect(list.stdout).toMatch(/^ {2}default +\S+ +gh@example\.com/m);
    expect(list.stdout).toMatch(/^\* work +\S+ +work@example\.com/m);
    expect(list.stdout).toMatch(/^ {2}travel +\S+ +not signed in/m);
    expect((await run(['--profile', 'work', 'whoami'], home)).stdout).toContain('work@example.com');
    expect((await run(['profiles', 'remove', 'work'], home)).code).toBe(2);
    expect((await run(['profiles', 'remove', 'travel'], home)).code).toBe(0);
  });

  it('api calls any path with the stored key and prints the data', async () => {
    const me = await run(['api', 'GET', '/me']);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).user.email).toBe('gh@example.com');
    const sql = await run(['api', 'post', '/v1/sql/query', '-d', '{"sql": "SELECT 41 + 1 AS answer"}']);
    expect(sql.code).toBe(0);
    expect(JSON.parse(sql.stdout).statements[0].rows[0].answer).toBe(42);
    const missing = await run(['api', 'GET', '/no-such-route']);
    expect(missing.code).toBe(1);
    expect((await run(['api', 'FETCH', '/me'])).code).toBe(2);
    expect((await run(['api', 'GET', `${sandbox.server.apiUrl}/me`])).code).toBe(2);
    expect((await run(['api', 'POST', '/sql/query', '-d', '{not json'])).code).toBe(2);
  });

  it('report budget|spending|balances|trend runs the fixed reports, as a table or chart-friendly CSV', async () => {
    expect((await run(['import', join(BANKS, 'transfers.csv'), '--yes'])).code).toBe(0);
    expect(
      (
        await run([
          'import',
          join(BANKS, 'budget.csv'),
          '--into',
          'budget_lines',
          '--map',
          'Month=budget_month',
          '--map',
          'Planned=planned_value',
          '--yes',
        ])
      ).code,
    ).toBe(0);
    const spending = await run(['report', 'spending', '--month', '2026-03', '--format', 'csv']);
    expect(spending.code).toBe(0);
    expect(spending.stdout).toBe(
      'category,currency,spent,entries\ngroceries,USD,82.13,1\ncoffee,USD,4.50,1\n',
    );
    const balances = await run(['report', 'balances', '--month', '2026-03', '--format', 'csv']);
    expect(balances.stdout.split('\n').slice(0, 3)).toEqual([
      'account_id,currency,balance,change,entries,last_ts,native_currency,native_balance,native_change',
      expect.stringMatching(/^checking,USD,1913\.37,1913\.37,4,/),
      expect.stringMatching(/^savings,USD,500\.00,500\.00,1,/),
    ]);
    const trend = await run(['report', 'trend', '--month', '2026-03', '--format', 'csv']);
    const lines = trend.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('month,currency,income,spent,net');
    expect(lines.at(-1)).toBe('2026-03-01,USD,2500.00,86.63,2413.37');
    expect(lines[1]!.startsWith('2025-04-01,')).toBe(true);
    const budget = await run(['report', 'budget', '--month', '2026-11']);
    expect(budget.code).toBe(0);
    expect(budget.stdout).toMatch(/groceries +USD +400\.00 +0/);
    expect((await run(['report', 'forecast'])).code).toBe(2);
    expect((await run(['report', 'trend', '--month', '2026-13'])).code).toBe(2);
  });
});
