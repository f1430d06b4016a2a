import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  plain,
  type RunningServer,
  type Sandbox,
  spawnInTerminal,
} from '../../../../test/e2e/harness.js';

// The parts of the CLI that need the SQL endpoints (/v1/sql/query, /v1/sql/execute, /v1/sql with dryRun and
// Idempotency-Key): the built binary against the built server, as processes.
describe('expense CLI end to end: SQL, approval and import', () => {
  let sandbox: Sandbox;
  let dir: { path: string; remove(): Promise<void> };
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[], input?: string, extra: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    cli(args, { ...env, ...extra }, input);
  const count = async (where = 'true') => {
    const r = await run([
      'query',
      '--format',
      'csv',
      `SELECT count(*) AS n FROM ledger_entries WHERE ${where}`,
    ]);
    expect(r.code).toBe(0);
    return Number(r.stdout.split('\n')[1]);
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-e2e-sql-', { database: 'postgres' });
    ({ dir, server, env } = sandbox);
    const login = await loginWithoutTty(env, server.outbox, 'sql@example.com', new Set(), [
      '--insecure-storage',
    ]);
    expect(login.code).toBe(0);
    expect((await run(['workspaces', 'create', 'Books'])).code).toBe(0);
    expect((await run(['use', 'Books'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('exec is refused without --yes (exit 3, nothing written) and runs with it', async () => {
    const insert =
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note) VALUES ('2026-01-05', 'cash', -4.5, 'USD', 'spend', 'coffee')";
    const refused = await run(['exec', insert]);
    expect(refused.code).toBe(3);
    expect(await count()).toBe(0);
    const done = await run(['exec', '--yes', insert]);
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(
      /Committed as change ([0-9a-f]{8}) \(undo: expense revert \1\)\.\n1\. INSERT: affected 1 row/,
    );
    expect(await count()).toBe(1);
  });

  it('exec of a read says to use query (exit 2, nothing sent)', async () => {
    const result = await run(['exec', '--yes', 'SELECT 1 AS one']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expense query');
    expect(result.stderr).not.toContain('changes data');
  });

  it('a malformed --api-url is wrong usage (exit 2); one without /v1 gets the right URL', async () => {
    const malformed = await run(['--api-url', 'not a url', 'whoami']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).not.toContain('credential_store');
    const root = new URL(env.EXPENSE_API_URL!).origin;
    const noV1 = await run(['--api-url', root, 'query', 'SELECT 1 AS one']);
    expect(noV1.code).toBe(2);
    expect(noV1.stderr).toContain(`--api-url ${root}/v1`);
  });

  it('--dry-run shows the effect and changes nothing', async () => {
    const result = await run(['exec', '--dry-run', "DELETE FROM ledger_entries WHERE note = 'coffee'"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Dry run:.*rolled back/);
    expect(result.stderr).toContain('DELETE: would affect 1 row');
    expect(await count()).toBe(1);
  });

  it('query prints a table, CSV and JSON, and says when rows were cut', async () => {
    const rows = Array.from(
      { length: 120 },
      (_, i) =>
        `('2026-02-${String((i % 28) + 1).padStart(2, '0')}', 'card', -${i + 1}.00, 'EUR', 'spend', 'n${i}')`,
    );
    // Two writes of 60 rows each: the server allows 100 affected rows per request.
    for (const part of [rows.slice(0, 60), rows.slice(60)]) {
      const r = await run([
        'exec',
        '--yes',
        `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, note) VALUES ${part.join(', ')}`,
      ]);
      expect(r.code).toBe(0);
    }
    const sql = "SELECT note, amount FROM ledger_entries WHERE account_id = 'card' ORDER BY amount DESC";
    const table = await run(['query', sql]);
    // Cut by the row cap with stdout not a terminal: the rows are printed, and the exit code says they are a part.
    expect(table.code).toBe(6);
    expect(table.stdout.split('\n')[0]).toMatch(/^note\s+amount$/);
    expect(table.stdout).toMatch(/\nn0 +-1\.00\n/);
    expect(table.stderr).toContain('Showing 100 of 120 rows');
    const csv = await run(['query', '--format', 'csv', sql]);
    expect(csv.code).toBe(6);
    expect(csv.stderr).toContain('--all');
    expect(csv.stdout.startsWith('note,amount\nn0,-1.00\n')).toBe(true);
    expect(csv.stderr).toContain('Showing 100 of 120 rows');
    const json = await run(['query', '--format', 'json', sql]);
    const parsed = JSON.parse(json.stdout) as { note: string; amount: string }[];
    expect(parsed).toHaveLength(100);
    expect(parsed[0]).toEqual({ note: 'n0', amount: '-1.00' });
    const whole = JSON.parse((await run(['--json', 'query', sql])).stdout);
    expect(whole.statements[0]).toMatchObject({ truncated: true, totalRowCount: 120, returnedRowCount: 100 });
    const fromStdin = await run(['query', '--format', 'csv'], 'SELECT count(*) AS n FROM ledger_entries');
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe('n\n121\n');
  });

  it('--all pages through the whole result in order, and refuses a query without ORDER BY', async () => {
    const sql =
      "SELECT note, amount FROM ledger_entries WHERE account_id = 'card' ORDER BY amount DESC, note;";
    const csv = await run(['query', '--all', '--format', 'csv', sql]);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(121);
    expect(lines[1]).toBe('n0,-1.00');
    expect(lines[120]).toBe('n119,-120.00');
    expect(new Set(lines).size).toBe(121);
    const json = JSON.parse((await run(['--json', 'query', '--all', sql])).stdout);
    expect(json.statements[0]).toMatchObject({ truncated: false, returnedRowCount: 120, totalRowCount: 120 });
    expect(json.statements[0].rows).toHaveLength(120);
    const unordered = await run([
      'query',
      '--all',
      "SELECT note FROM ledger_entries WHERE account_id = 'card'",
    ]);
    expect(unordered.code).toBe(2);
    expect(unordered.stderr).toContain('ORDER BY');
    const orderedInside = await run([
      'query',
      '--all',
      'SELECT n FROM (SELECT note AS n FROM ledger_entries ORDER BY note) AS s',
    ]);
    expect(orderedInside.code).toBe(2);
    const limited = await run(['query', '--all', 'SELECT note FROM ledger_entries ORDER BY note LIMIT 5']);
    expect(limited.code).toBe(2);
    expect(limited.stderr).toContain('LIMIT');
  });

  it('prints for Unix tools and psql habits: LF or --crlf CSV, -t, -A -F, -x, --json --numbers', async () => {
    const sql = "SELECT note, amount, 3 AS n FROM ledger_entries WHERE note IN ('n0', 'n1') ORDER BY note";
    const crlf = await run(['query', '--format', 'csv', '--crlf', sql]);
    expect(crlf.stdout).toBe('note,amount,n\r\nn0,-1.00,3\r\nn1,-2.00,3\r\n');
    expect((await run(['query', '--format', 'csv', '-t', sql])).stdout).toBe('n0,-1.00,3\nn1,-2.00,3\n');
    expect((await run(['query', '-A', sql])).stdout).toBe('note|amount|n\nn0|-1.00|3\nn1|-2.00|3\n');
    expect((await run(['query', '-A', '-t', '-F', '\t', sql])).stdout).toBe('n0\t-1.00\t3\nn1\t-2.00\t3\n');
    const expanded = await run(['query', '-x', sql]);
    expect(expanded.stdout).toBe(
      '-[ RECORD 1 ]-\nnote   | n0\namount | -1.00\nn      | 3\n-[ RECORD 2 ]-\nnote   | n1\namount | -2.00\nn      | 3\n',
    );
    const noHeader = await run(['query', '-t', sql]);
    expect(noHeader.stdout.split('\n')[0]).toMatch(/^n0 +-1\.00 +3$/);
    const json = JSON.parse((await run(['--json', 'query', '--numbers', sql])).stdout);
    expect(json.statements[0].rows).toEqual([
      { note: 'n0', amount: -1, n: 3 },
      { note: 'n1', amount: -2, n: 3 },
    ]);
    const rows = JSON.parse((await run(['query', '--format', 'json', '--numbers', sql])).stdout);
    expect(rows[1]).toEqual({ note: 'n1', amount: -2, n: 3 });
    const strings = JSON.parse((await run(['query', '--format', 'json', sql])).stdout);
    expect(strings[1].amount).toBe('-2.00');
  });

  it('pages a table through $PAGER on a terminal, never when stdout is not one', async () => {
    const sql = "SELECT note FROM ledger_entries WHERE note = 'n0'";
    const term = spawnInTerminal(['query', sql], { ...env, PAGER: 'sed s/^/PAGED:/' });
    const shown = plain((await term.result).stdout);
    expect(shown).toContain('PAGED:n0');
    const piped = await run(['query', sql], undefined, { PAGER: 'sed s/^/PAGED:/' });
    expect(piped.stdout).not.toContain('PAGED');
    const off = spawnInTerminal(['query', '--no-pager', sql], { ...env, PAGER: 'sed s/^/PAGED:/' });
    expect(plain((await off.result).stdout)).not.toContain('PAGED');
  });

  it('query without SQL on a terminal opens a prompt with d, multi-line SQL, history and q', async () => {
    const state = join(dir.path, 'state');
    const term = spawnInTerminal(['query'], { ...env, XDG_STATE_HOME: state });
    await term.waitFor(/Books=> /, 'stdout');
    term.write('\\d\r');
    await term.waitFor(/ledger_entries/, 'stdout');
    term.write('\\d ledger_entries\r');
    await term.waitFor(/account_id/, 'stdout');
    term.write('SELECT note AS picked\r');
    await term.waitFor(/Books-> /, 'stdout');
    term.write("FROM ledger_entries WHERE note = 'n7';\r");
    await term.waitFor(/picked[\s\S]*n7/, 'stdout');
    term.write('SELECT * FROM pg_user;\r');
    await term.waitFor(/relation_not_allowed/, 'stdout');
    term.write('\\q\r');
    const result = await term.result;
    expect(result.code).toBe(0);
    const history = await readFile(join(state, 'expense', 'history'), 'utf8');
    expect(history).toContain("SELECT note AS picked FROM ledger_entries WHERE note = 'n7';");
    expect(history).toContain('\\d ledger_entries');
  });

  it('a dialect error exits 5 with the code and a caret under the position', async () => {
    const result = await run(['query', 'SELECT note\nFROM ledger_entries\nWHERE lower(note) = $$x$$']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/\((function_not_allowed|dollar_quoted_string_not_allowed)\)/);
    expect(result.stderr).toMatch(/LINE 3: WHERE lower\(note\) = \$\$x\$\$\n\s+\^/);
    const json = await run(['--json', 'query', 'SELECT * FROM pg_user']);
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stdout).error.code).toBe('relation_not_allowed');
    const db = await run([
      'exec',
      '--yes',
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES ('2026-01-01', 'a', 'abc', 'USD', 'spend')",
    ]);
    expect(db.code).toBe(5);
    expect(db.stderr).toContain('sql_execution_failed');
  });

  it('sql runs a script atomically, asking once only when it writes', async () => {
    const script = join(dir.path, 'script.sql');
    await writeFile(
      script,
      "UPDATE ledger_entries SET category = 'food' WHERE note = 'coffee';\nSELECT category FROM ledger_entries WHERE note = 'coffee';\n",
    );
    expect((await run(['sql', '-f', script])).code).toBe(3);
    const done = await run(['sql', '-f', script, '--yes']);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('food');
    const read = await run(['sql', 'SELECT 1 AS one; SELECT 2 AS two']);
    expect(read.code).toBe(0);
  });

  it('imports a few hundred rows once; a second run adds nothing', async () => {
    const lines = ['Date,Amount,Currency,Payee,Memo'];
    for (let i = 0; i < 300; i++) {
      const memo = i % 50 === 0 ? `"quote ' back\\ semi; -- dash /* c */"` : `memo ${i}`;
      lines.push(
        `2026-03-${String((i % 28) + 1).padStart(2, '0')},${i % 7 === 0 ? '' : '-'}${i + 1}.25,usd,Shop ${i % 9},${memo}`,
      );
    }
    lines.push(lines[1]!); // an identical row is a second, separate entry
    const file = join(dir.path, 'bank.csv');
    await writeFile(file, `${lines.join('\n')}\n`);
    const args = [
      'import',
      file,
      '--account',
      'bank',
      '--map',
      'Date=ts',
      '--map',
      'Payee=counterparty',
      '--map',
      'Memo=note',
      '--yes',
    ];
    const first = await run(args);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('301 inserted, 0 skipped as already present, 0 failed');
    expect(await count("account_id = 'bank'")).toBe(301);
    // i % 7 === 0 are positive (43 rows), plus the repeated first row: income by the sign of the amount.
    expect(await count("account_id = 'bank' AND kind = 'income'")).toBe(44);
    expect(await count(`account_id = 'bank' AND note = 'quote '' back\\ semi; -- dash /* c */'`)).toBe(7);

    const second = await run(['--json', ...args]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 301, inserted: 0, skipped: 301, failed: 0 });
    expect(await count("account_id = 'bank'")).toBe(301);

    // A changed file (new keys) still adds only the new row: the external_id check skips the rest.
    await writeFile(file, `${[...lines, '2026-03-29,-1.00,USD,Shop new,late'].join('\n')}\n`);
    const third = await run(['--json', ...args]);
    expect(JSON.parse(third.stdout)).toMatchObject({ inserted: 1, skipped: 301 });
    const dry = await run(['--json', ...args.filter((a) => a !== '--yes'), '--dry-run']);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, inserted: 0, skipped: 302 });
  });

  it('without approval an import sends nothing (exit 3)', async () => {
    const file = join(dir.path, 'small.csv');
    await writeFile(file, 'ts,account_id,amount,currency\n2026-04-01,petty,-1,USD\n');
    const result = await run(['import', file]);
    expect(result.code).toBe(3);
    expect(await count("account_id = 'petty'")).toBe(0);
  });

  it('in a terminal, "y" approves: the import runs with a progress bar', async () => {
    const file = join(dir.path, 'terminal.csv');
    const rows = Array.from({ length: 150 }, (_, i) => `2026-05-01,tty,-${i + 1},USD`);
    await writeFile(file, `ts,account_id,amount,currency\n${rows.join('\n')}\n`);
    const term = spawnInTerminal(['import', file], env);
    await term.waitFor(/Import 150 rows into workspace "Books" \([^)]+\)\? \[y\/N\] /, 'stdout');
    term.write('y\r');
    const result = await term.result;
    const out = plain(result.stdout);
    expect(result.code).toBe(0);
    expect(out).toMatch(/importing \[#+\.*\] \d+\/150 rows/);
    expect(out).toContain('150 inserted, 0 skipped as already present, 0 failed');
    expect(await count("account_id = 'tty'")).toBe(150);
  });
});
