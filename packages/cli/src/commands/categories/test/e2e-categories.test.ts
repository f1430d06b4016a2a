import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

// Issue 41, item 4: categories matched ignoring case (the spelling the workspace has wins), and `expense categories
// rename` renaming or merging as one entry of the history, undone by one `expense revert`.
describe('expense CLI end to end: categories', () => {
  let sandbox: Sandbox;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[]): Promise<CliResult> => cli(args, env);
  const exec = async (sql: string) => {
    const r = await run(['exec', '--yes', sql]);
    expect(r.code, r.stderr).toBe(0);
  };
  const entries = (n: number, category: string, day = 5) =>
    `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES ${Array.from(
      { length: n },
      (_, i) =>
        `('2026-01-${String(day).padStart(2, '0')}', 'cat', -${i + 1}, 'USD', 'spend', '${category}')`,
    ).join(', ')}`;
  const categories = async () => {
    const r = await run([
      'query',
      '--format',
      'csv',
      'SELECT category, count(*) AS n FROM ledger_entries GROUP BY category ORDER BY category',
    ]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim().split('\n').slice(1).sort();
  };
  const newest = async () =>
    JSON.parse((await run(['history', '--json', '--limit', '1'])).stdout).changes[0] as {
      shortId: string;
      group?: { changes: number };
    };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-e2e-categories-', { database: 'postgres' });
    env = sandbox.env;
    const login = await loginWithoutTty(env, sandbox.server.outbox, 'cats@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Cats'])).code).toBe(0);
    expect((await run(['use', 'Cats'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('keeps the existing spelling on entry, and merges a category into another as one change', async () => {
    await exec(entries(1, 'Groceries'));
    await exec(entries(1, 'GROCERIES', 6));
    await exec(entries(1, 'food', 7));
    expect(await categories()).toEqual(['food,1', 'Groceries,2'].sort());

    const merged = await run(['categories', 'rename', 'groceries', 'Food', '--yes']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain('Merging "Groceries" into "food": 2 entries and 0 budget lines.');
    expect(await categories()).toEqual(['food,3'].sort());

    const change = await newest();
    const undone = await run(['revert', '--yes', change.shortId]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(await categories()).toEqual(['food,1', 'Groceries,2'].sort());
  });

  it('renames more rows than one request may change as one group, which one revert undoes', async () => {
    await exec(entries(70, 'coffee', 8));
    await exec(entries(50, 'coffee', 9));
    const renamed = await run(['categories', 'rename', 'Coffee', 'Café', '--yes']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(await categories()).toEqual(['Café,120', 'food,1', 'Groceries,2'].sort());
    const change = await newest();
    expect(change.group?.changes).toBe(2);
    const undone = await run(['revert', '--yes', change.shortId]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(await categories()).toEqual(['coffee,120', 'food,1', 'Groceries,2'].sort());
  });
});
