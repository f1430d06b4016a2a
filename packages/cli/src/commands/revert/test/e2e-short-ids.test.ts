import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

// Issue 41: one short id for changes. `expense history` prints each change's short id (the API's shortId) in the
// workspace's time zone, to the minute, within the width; `expense revert` takes that id, the API's, or a prefix.
describe('expense CLI end to end: short change ids', () => {
  let sandbox: Sandbox;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[]): Promise<CliResult> => cli(args, env);
  const count = async (account: string) => {
    const r = await run([
      'query',
      '--format',
      'csv',
      `SELECT count(*) AS n FROM ledger_entries WHERE account_id = '${account}'`,
    ]);
    expect(r.code).toBe(0);
    return Number(r.stdout.split('\n')[1]);
  };
  const insert = async (account: string, counterparty: string) => {
    const r = await run([
      'exec',
      '--yes',
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, counterparty) VALUES ('2026-01-05 23:30+00', '${account}', -4.5, 'USD', 'spend', '${counterparty}')`,
    ]);
    expect(r.code, r.stderr).toBe(0);
  };
  const history = async () => {
    const r = await run(['history', '--json', '--limit', '100']);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as {
      timeZone: string;
      changes: { changeId: string; shortId: string; at: string }[];
    };
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-e2e-short-ids-', { database: 'postgres' });
    env = sandbox.env;
    const login = await loginWithoutTty(env, sandbox.server.outbox, 'short@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Ids'])).code).toBe(0);
    expect((await run(['use', 'Ids'])).code).toBe(0);
    const zone = await run(['exec', '--yes', "UPDATE workspace_settings SET timezone = 'Asia/Tokyo'"]);
    expect(zone.code, zone.stderr).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('prints short ids, local minutes and named rows within 100 columns; the printed id reverts', async () => {
    await insert('printed', 'Corner Cafe');
    const table = await run(['history']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(100);
    const { timeZone, changes } = await history();
    expect(timeZone).toBe('Asia/Tokyo');
    const newest = changes[0]!;
    expect(newest.shortId).toBe(newest.changeId.slice(-8));
    // The entry's day in Tokyo (23:30 UTC is the next morning there), its payee and amount; no milliseconds.
    const row = lines.find((l) => l.startsWith(newest.shortId));
    expect(row).toMatch(/added 2026-01-06 Corner Cafe -4\.5\d* USD/);
    const local = new Intl.DateTimeFormat('sv-SE', {
      timeZone: 'Asia/Tokyo',
      dateStyle: 'short',
      timeStyle: 'short',
    }).format(new Date(newest.at));
    expect(row).toContain(local);
    expect(table.stdout).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}/);

    // The id as printed in the table, typed back.
    const printed = row!.split(/\s+/)[0]!;
    const done = await run(['revert', '--yes', printed]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/removed: 2026-01-06 Corner Cafe/);
    expect(await count('printed')).toBe(0);
  });

  it("reverts by the API's shortId, and refuses a prefix several changes share, listing them", async () => {
    await insert('from-api', 'Bakery');
    await insert('other', 'Grocer');
    const { changes } = await history();
    const target = changes[1]!;
    expect(target.changeId).not.toBe(changes[0]!.changeId);
    const done = await run(['revert', '--yes', target.shortId]);
    expect(done.code, done.stderr).toBe(0);
    expect(await count('from-api')).toBe(0);
    expect(await count('other')).toBe(1);

    const [a, b] = [changes[0]!.changeId.replace(/-/g, ''), changes[1]!.changeId.replace(/-/g, '')];
    let common = 0;
    while (a[common] === b[common]) common++;
    expect(common).toBeGreaterThanOrEqual(4);
    const ambiguous = await run(['revert', '--yes', a.slice(0, common)]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('is ambiguous');
    expect(ambiguous.stderr).toContain(changes[0]!.shortId);
    expect(await count('other')).toBe(1);
  });
});
