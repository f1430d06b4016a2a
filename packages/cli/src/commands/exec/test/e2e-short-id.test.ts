import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

// Issue 41: one short id for changes. A committed write answers its change's shortId beside its changeId (the one
// GET /v1/changes, `expense history` and the console's Activity show); `expense exec`, `expense sql` and
// `expense import` print it, and `expense revert` takes it; a revert names its own change by it too.
describe('expense CLI end to end: writes name their change by its short id', () => {
  let sandbox: Sandbox;
  const run = (args: string[]): Promise<CliResult> => cli(args, sandbox.env);
  const newest = async () => {
    const r = await run(['history', '--json', '--limit', '1']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { changes: { changeId: string; shortId: string }[] }).changes[0]!;
  };
  const count = async (account: string) => {
    const r = await run([
      'query',
      '--format',
      'csv',
      `SELECT count(*) AS n FROM ledger_entries WHERE account_id = '${account}'`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    return Number(r.stdout.split('\n')[1]);
  };
  const insert = (account: string) =>
    `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note) VALUES ('2026-02-03', '${account}', -4.5, 'USD', 'spend', 'tea')`;
  /** The short id a human-readable write prints: "change <id> (undo: expense revert <id>)". */
  const printed = (stderr: string) =>
    /change ([0-9a-f]{8}(?:[0-9a-f]{4})?) \(undo(?: the whole import)?: expense revert \1\)/.exec(
      stderr,
    )?.[1];

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-e2e-short-id-', { database: 'postgres' });
    const login = await loginWithoutTty(sandbox.env, sandbox.server.outbox, 'ids@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Short ids'])).code).toBe(0);
    expect((await run(['use', 'Short ids'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('exec prints the short id the history shows, and expense revert <it> undoes the write', async () => {
    const done = await run(['exec', '--yes', insert('exec')]);
    expect(done.code, done.stderr).toBe(0);
    const shortId = printed(done.stderr);
    const change = await newest();
    expect(shortId, done.stderr).toBe(change.shortId);
    expect(change.changeId.replace(/-/g, '').endsWith(shortId!)).toBe(true);
    expect(done.stderr).not.toContain(change.changeId);
    expect(await count('exec')).toBe(1);

    const undone = await run(['revert', '--yes', shortId!]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stderr).toContain(`Undid change ${shortId}`);
    expect(await count('exec')).toBe(0);
  });

  it('a revert names its own change by the short id the history shows, and reverting that redoes the write', async () => {
    const done = await run(['exec', '--yes', insert('redo')]);
    expect(done.code, done.stderr).toBe(0);
    const undone = await run(['revert', '--yes', printed(done.stderr)!]);
    expect(undone.code, undone.stderr).toBe(0);
    const again = /\(to undo this too: expense revert ([0-9a-f]{8}(?:[0-9a-f]{4})?)\)/.exec(
      undone.stderr,
    )?.[1];
    const revert = await newest();
    expect(again, undone.stderr).toBe(revert.shortId);
    expect(undone.stderr).not.toContain(revert.changeId);
    expect(await count('redo')).toBe(0);

    const redone = await run(['revert', '--yes', again!]);
    expect(redone.code, redone.stderr).toBe(0);
    expect(redone.stderr).toContain(`Undid change ${again}`);
    expect(await count('redo')).toBe(1);
  });

  it('--json carries both ids; a script and an import print the short id too', async () => {
    const json = await run(['--json', 'exec', '--yes', insert('json')]);
    expect(json.code, json.stderr).toBe(0);
    const data = JSON.parse(json.stdout) as { changeId: string; shortId: string };
    const { changeId, shortId } = await newest();
    expect(data).toMatchObject({ changeId, shortId });

    const script = await run(['sql', '--yes', `${insert('script')}; ${insert('script')}`]);
    expect(script.code, script.stderr).toBe(0);
    expect(printed(script.stderr)).toBe((await newest()).shortId);

    const file = join(sandbox.dir.path, 'short-id.csv');
    await writeFile(
      file,
      'ts,account_id,amount,currency\n2026-02-04,imported,-3,USD\n2026-02-05,imported,-4,USD\n',
    );
    const imported = await run(['import', file, '--yes']);
    expect(imported.code, imported.stderr).toBe(0);
    const group = await newest();
    expect(printed(imported.stderr), imported.stderr).toBe(group.shortId);
    const undone = await run(['revert', '--yes', group.shortId]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(await count('imported')).toBe(0);
  });
});
