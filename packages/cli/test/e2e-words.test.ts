import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cli, loginWithoutTty, openSandbox, type Sandbox } from './e2e/harness.js';

// What the CLI says, against the built server: comments, reads and writes, where a write goes, files.
describe('expense CLI in its own words', () => {
  let sandbox: Sandbox;
  const run = (args: string[], input?: string): Promise<CliResult> => cli(args, sandbox.env, input);

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-words-', { database: 'postgres' });
    const login = await loginWithoutTty(sandbox.env, sandbox.server.outbox, 'words@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Household'])).code).toBe(0);
    expect((await run(['use', 'household'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('a read-only script with comments is a read: no approval asked, comments not sent', async () => {
    const script = join(sandbox.dir.path, 'report.sql');
    await writeFile(
      script,
      "-- monthly check: don't change anything\nSELECT 1 AS one; /* a second\n read */ SELECT 'a -- b' AS two;\n",
    );
    const result = await run(['sql', '-f', script]);
    expect(result.stderr).not.toContain('changes data');
    expect(result.stderr).toContain('Comments are not sent');
    expect(result.stdout).toContain('a -- b');
    expect(result.code).toBe(0);
    const commentedWrite = join(sandbox.dir.path, 'write.sql');
    await writeFile(commentedWrite, "-- tidy up\nDELETE FROM ledger_entries WHERE note = 'x';\n");
    expect((await run(['sql', '-f', commentedWrite])).code).toBe(3);
  });

  it('exec of SELECT 1 does not say it changes data', async () => {
    const result = await run(['exec', 'SELECT 1']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('changes data');
    expect(result.stderr).toContain('expense query');
  });

  it('the approval shows the workspace by name, not only its id', async () => {
    const result = await run(['exec', "DELETE FROM ledger_entries WHERE note = 'x'"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/This will run on workspace "Household" \([0-9a-z-]+\):/);
  });

  it('says a missing file or a directory in words', async () => {
    const missing = await run(['sql', '-f', join(sandbox.dir.path, 'nope.sql')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('There is no file');
    expect(missing.stderr).not.toContain('ENOENT');
    const folder = join(sandbox.dir.path, 'exports');
    await mkdir(folder);
    const dir = await run(['import', folder, '--account', 'x', '--dry-run']);
    expect(dir.code).toBe(1);
    expect(dir.stderr).toContain('is a directory, not a file');
    expect(dir.stderr).not.toContain('EISDIR');
  });

  it('a write over the affected-row cap is refused with the batching pattern', async () => {
    const file = join(sandbox.dir.path, 'many.csv');
    const rows = Array.from({ length: 150 }, (_, i) => `2026-05-01,many,-${i + 1},USD`);
    await writeFile(file, `ts,account_id,amount,currency\n${rows.join('\n')}\n`);
    expect((await run(['import', file, '--yes'])).code).toBe(0);
    const result = await run([
      'exec',
      '--yes',
      "UPDATE ledger_entries SET note = 'seen' WHERE account_id = 'many'",
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('mutation_row_limit_exceeded');
    expect(result.stderr).toContain('run it again until it affects 0 rows');
  });
});
