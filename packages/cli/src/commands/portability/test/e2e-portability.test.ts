import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

// `expense export`, `expense restore`, `expense workspaces delete` and `expense account delete` (issue 40): the
// built binary against the built server, as processes without a terminal (the typed confirmation is --confirm).
describe('expense CLI end to end: export, restore, delete', () => {
  let sandbox: Sandbox;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[]): Promise<CliResult> => cli(args, env);

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-e2e-portability-', { database: 'postgres' });
    env = sandbox.env;
    const login = await loginWithoutTty(env, sandbox.server.outbox, 'portable@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Books'])).code).toBe(0);
    expect((await run(['use', 'Books'])).code).toBe(0);
    const insert =
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES ('2026-01-05', 'cash', -4.5, 'USD', 'spend', '=cmd'), ('2026-01-06', 'cash', 10, 'USD', 'income', 'pay')";
    expect((await run(['exec', '--yes', insert])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('exports to a file and restores it into a new workspace as one change', async () => {
    const file = join(sandbox.dir.path, 'books.json');
    const exported = await run(['export', '-o', file]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/Exported Books/);
    const doc = JSON.parse(await readFile(file, 'utf8'));
    expect(doc).toMatchObject({ format: 'expense-export', version: 1 });
    expect(doc.ledger_entries).toHaveLength(2);

    const zip = await run(['export', '--format', 'csv', '-o', join(sandbox.dir.path, 'books.zip')]);
    expect(zip.code, zip.stderr).toBe(0);

    const created = JSON.parse((await run(['workspaces', 'create', 'Copy', '--json'])).stdout);
    const copy = created.workspace.workspaceId as string;
    const restored = await run(['restore', file, '--workspace', copy]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toMatch(
      /Restored into Copy: 1 workspace_settings, 0 account_metadata, 0 budget_lines, 2 ledger_entries/,
    );
    // The undo names the restore's short id from the server: the one the history lists, unique beside the
    // replayed changes of the same minutes (issue 41).
    const undo = /One change: ([0-9a-f-]{8,36}) \(`expense revert \1` undoes it\)/.exec(restored.stderr);
    expect(undo, restored.stderr).not.toBeNull();
    const history = await run(['history', '--json', '--limit', '1', '--workspace', copy]);
    expect(history.code, history.stderr).toBe(0);
    const [newest] = JSON.parse(history.stdout).changes as { shortId: string; endpoint: string }[];
    expect(newest).toMatchObject({ endpoint: 'restore', shortId: undo?.[1] });
    const reverted = await run(['revert', undo?.[1] as string, '--yes', '--workspace', copy]);
    expect(reverted.code, reverted.stderr).toBe(0);
    const emptied = await run([
      'query',
      'SELECT count(*) AS n FROM ledger_entries',
      '--workspace',
      copy,
      '--json',
    ]);
    expect(JSON.parse(emptied.stdout).statements[0].rows).toEqual([{ n: '0' }]);
    const redo = await run(['restore', file, '--workspace', copy]);
    expect(redo.code, redo.stderr).toBe(0);
    const again = await run(['restore', file, '--workspace', copy]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/workspace_not_empty|already holds data/);
    expect(again.stderr).toMatch(/--replace/);
  });

  it('deletes a workspace after its name, and the account after its address; both final', async () => {
    const wrong = await run(['workspaces', 'delete', 'Copy', '--confirm', 'copy']);
    expect(wrong.code).toBe(2);
    const noTerminal = await run(['workspaces', 'delete', 'Copy']);
    expect(noTerminal.code).toBe(3);
    const done = await run(['workspaces', 'delete', 'Copy', '--confirm', 'Copy']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/no undo/);
    expect((await run(['workspaces'])).stdout).not.toMatch(/Copy/);

    const account = await run(['account', 'delete', '--confirm', 'PORTABLE@example.com']);
    expect(account.code, account.stderr).toBe(0);
    expect(account.stderr).toMatch(/Deleted the account portable@example.com, for good/);
    const after = await run(['whoami']);
    expect(after.code).toBe(4);
  });
});
