import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

// `expense history` and `expense revert`: the built binary against the built server, as processes.
describe('expense CLI end to end: history and revert', () => {
  let sandbox: Sandbox;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[]): Promise<CliResult> => cli(args, env);
  const count = async () => {
    const r = await run([
      'query',
      '--format',
      'csv',
      "SELECT count(*) AS n FROM ledger_entries WHERE account_id = 'hist'",
    ]);
    expect(r.code).toBe(0);
    return Number(r.stdout.split('\n')[1]);
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-e2e-history-', { database: 'postgres' });
    env = sandbox.env;
    const login = await loginWithoutTty(env, sandbox.server.outbox, 'history@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Books'])).code).toBe(0);
    expect((await run(['use', 'Books'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('history lists a committed write; revert asks, then undoes it with --yes', async () => {
    const insert =
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES ('2026-01-05', 'hist', -4.5, 'USD', 'spend'), ('2026-01-06', 'hist', -1, 'USD', 'spend')";
    expect((await run(['exec', '--yes', insert])).code).toBe(0);
    const table = await run(['history']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/added 2026-01-05 hist -4\.5 USD; added 2026-01-06/);
    const json = await run(['history', '--json', '--limit', '1']);
    const [change] = JSON.parse(json.stdout).changes;
    expect(change.sql).toBe(insert);

    const refused = await run(['revert', change.changeId]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/Dry run:.*2 row/);
    expect(await count()).toBe(2);

    // Any unique prefix of the id names the change, as git resolves a short hash.
    const done = await run(['revert', '--yes', change.changeId.slice(0, 18)]);
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/Undid change/);
    expect(await count()).toBe(0);
    const after = JSON.parse((await run(['history', '--json'])).stdout).changes;
    expect(after[0]).toMatchObject({ endpoint: 'revert', reverts: change.changeId });
  });
});
