// The built `expense-server` command as a process: migrate, start, and a graceful stop on SIGTERM/SIGINT
// that lets the request in flight finish and exits 0.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  codeOf,
  copyMigratedPglite,
  emptyPgliteDir,
  lastMailTo,
  removeDir,
  routePath,
  tempDir,
} from '@expense/test-kit';
import { AGENT_ROUTES, API_ROUTES } from '@expense/wire';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../../../dist/bin.js');

interface Running {
  child: ChildProcess;
  origin: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(env: NodeJS.ProcessEnv): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { PATH: process.env.PATH, EXPENSE_PORT: '0', EXPENSE_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  return new Promise((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "serving" line:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving (http:\/\/\S+)\/v1/.exec(output);
      if (match) {
        clearTimeout(timer);
        ready({ child, origin: match[1]!, output: () => output, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => fail(new Error(`exited before serving:\n${output}`)));
  });
}

async function post(origin: string, path: string, body: unknown, key?: string) {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `ApiKey ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
}

describe('expense-server as a process', () => {
  let dir: string;
  let running: Running | undefined;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error('build the server first: pnpm --filter @expense/server... build');
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
    running = undefined;
    if (dir) await removeDir(dir);
  });

  it('migrate applies the migrations to a data directory and exits 0', async () => {
    // initdb done (a copy of the run's blank directory): what is timed here is the migrations.
    dir = await emptyPgliteDir('expense-lifecycle-');
    const result = spawnSync(process.execPath, [BIN, 'migrate', '--data-dir', dir], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('migrations applied');
  });

  it('finishes the request in flight on SIGTERM, then closes and exits 0', async () => {
    dir = await tempDir('expense-lifecycle-');
    await copyMigratedPglite(dir); // starts migrated: the stop is what is tested
    running = await start({ EXPENSE_DATA_DIR: dir, EXPENSE_MAIL_OUTBOX: `${dir}/outbox` });
    const { origin } = running;
    const sent = await post(origin, routePath(AGENT_ROUTES.sendCode), { email: 'stop@example.com' });
    const code = codeOf(await lastMailTo(`${dir}/outbox`, 'stop@example.com'));
    const verified = await post(origin, routePath(AGENT_ROUTES.verifyCode), {
      code,
      otpSessionToken: sent.body.data.otpSessionToken,
      label: 'lifecycle',
    });
    const key = verified.body.data.apiKey as string;
    expect((await post(origin, routePath(API_ROUTES.createWorkspace), { name: 'Stop' }, key)).status).toBe(
      201,
    );
    const rows = Array.from(
      { length: 100 },
      (_, i) => `(TIMESTAMPTZ '2026-01-01 00:00:00+00', 'a', ${i + 1}, 'EUR', 'spend', 'x')`,
    ).join(', ');
    const insert = `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES ${rows}`;
    expect((await post(origin, routePath(API_ROUTES.sqlExecute), { sql: insert }, key)).status).toBe(200);

    // A read of 100^3 joined rows keeps the engine busy while the signal arrives.
    const slow = post(
      origin,
      routePath(API_ROUTES.sqlQuery),
      { sql: 'SELECT count(*) AS n FROM ledger_entries a, ledger_entries b, ledger_entries c' },
      key,
    );
    await new Promise((r) => setTimeout(r, 150));
    running.child.kill('SIGTERM');
    const answer = await slow;
    expect(answer.status).toBe(200);
    const statements = answer.body.data.statements as Array<{ rows: Array<{ n: string }> }>;
    expect(statements[0]!.rows[0]!.n).toBe('1000000');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.output()).toContain('stopping');
  });

  it('stops on SIGINT with exit code 0 and keeps what it stored', async () => {
    dir = await tempDir('expense-lifecycle-');
    await copyMigratedPglite(dir); // starts migrated: the stop is what is tested
    running = await start({ EXPENSE_DATA_DIR: dir, EXPENSE_MAIL_OUTBOX: `${dir}/outbox` });
    expect(
      (await post(running.origin, routePath(AGENT_ROUTES.sendCode), { email: 'int@example.com' })).status,
    ).toBe(200);
    running.child.kill('SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    running = await start({ EXPENSE_DATA_DIR: dir, EXPENSE_MAIL_OUTBOX: `${dir}/outbox` });
    const health = await fetch(`${running.origin}${routePath(API_ROUTES.ready)}`);
    expect(health.status).toBe(200);
    running.child.kill('SIGTERM');
    expect((await running.exited).code).toBe(0);
  });
});
