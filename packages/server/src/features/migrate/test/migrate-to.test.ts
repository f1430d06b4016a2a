// Issue 40, item 4: `expense-server migrate-to <postgres url>` moves an embedded installation to PostgreSQL. An
// embedded server (a data folder, not memory://) is seeded through the API: two users signed in by mail, a shared
// workspace with entries (microsecond timestamps, long decimals, balanced transfers, a change group), budgets,
// settings, accounts, a change and its revert, keys (one revoked), a pending invitation, an idempotent write and a
// confirmed dry run; OAuth rows and an expired idempotency record are added after it stops. Then, against a fresh
// PostgreSQL database: refused while the server runs; moved by the command (a process); every table compared row
// by row with the folder (which is byte for byte unchanged); a server on the PostgreSQL URL takes the same keys,
// answers /reports and /changes identically, replays the idempotent write, reverts a migrated change and shows
// the invitation. A second move into it is refused and changes nothing; a copy that fails midway (a row the target
// refuses, or its connection ended) leaves the target as empty as before.
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import {
  adminQuery,
  call,
  copyMigratedPglite,
  type FreshPostgres,
  freshPostgres,
  type Json,
  removeDir,
  request,
  type SignedIn,
  signIn,
  tempDir,
} from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_BIN_SOURCE, SERVER_DIR } from '../../../../bench/lib/paths.js';
import { createServer } from '../../../index.js';
import { parseConfig } from '../../../platform/config/config.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { MigrateError, migrateTo } from '../index.js';

const RANGE = { from: '2025-01-01', to: '2026-06-30' };
const REPORT_KINDS = ['spend_by_category', 'budget_vs_actual', 'balances', 'monthly_trend'] as const;

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@expense/source', '--import', 'tsx', SERVER_BIN_SOURCE, ...args],
      {
        cwd: SERVER_DIR,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** Every file of a directory, hashed with its path: equal digests, equal folders. */
async function folderDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files)
    hash
      .update(relative(dir, file))
      .update('\0')
      .update(await readFile(file));
  return `${files.length} files, ${hash.digest('hex')}`;
}

const TABLES = `SELECT n.nspname || '.' || c.relname AS name
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind = 'r' AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_' ORDER BY 1`;

/**
 * Every table's rows as text (count and the md5 of the sorted row texts), written independently of the command's
 * own checksums; not schema_migrations (each database's own record, with its own times).
 */
async function fingerprint(
  query: (text: string) => Promise<Record<string, unknown>[]>,
  where: Record<string, string> = {},
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const { name } of (await query(TABLES)) as { name: string }[]) {
    if (name === 'expense_internal.schema_migrations') continue;
    const [schema, table] = name.split('.');
    const rows = await query(
      `SELECT count(*)::text AS n, coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') AS h
       FROM "${schema}"."${table}" AS t ${where[name] ? `WHERE ${where[name]}` : ''}`,
    );
    out[name] = `${rows[0]?.n} ${rows[0]?.h}`;
  }
  return out;
}

async function postgresFingerprint(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET TimeZone = 'UTC'");
    return await fingerprint(async (text) => (await client.query(text)).rows);
  } finally {
    await client.end();
  }
}

async function pgliteFingerprint(db: Database, where: Record<string, string> = {}) {
  return db.transaction((tx) =>
    fingerprint(async (text) => {
      await tx.query("SET LOCAL TimeZone = 'UTC'");
      return (await tx.query(text)).rows;
    }, where),
  );
}

describe('expense-server migrate-to', () => {
  let root: string;
  let dataDir: string;
  const targets: FreshPostgres[] = [];
  const servers: FastifyInstance[] = [];
  let moved: FreshPostgres;

  async function serve(config: Record<string, unknown>): Promise<{ app: FastifyInstance; origin: string }> {
    const app = await createServer({
      logLevel: 'silent',
      ratePerSecond: 100_000,
      ratePerDay: 1_000_000,
      ...config,
    });
    servers.push(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    return { app, origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
  }

  async function target(): Promise<FreshPostgres> {
    const db = await freshPostgres({ prefix: 'expense_migrate' });
    targets.push(db);
    return db;
  }

  beforeAll(async () => {
    root = await tempDir('expense-migrate-');
    dataDir = join(root, 'data');
    await copyMigratedPglite(dataDir); // a migrated folder, as a first start would leave it (faster)
  });
  afterAll(async () => {
    for (const app of servers) await app.close().catch(() => {});
    for (const db of targets) await db.drop();
    await removeDir(root);
  });

  it('moves users, keys, workspaces, ledger, history and FX rates; the same keys get the same answers', {
    timeout: 300_000,
  }, async () => {
    const outbox = join(root, 'outbox');
    const embedded = await serve({ dataDir, mailOutbox: outbox });
    const client = { request: (m: string, p: string, o?: object) => request(embedded.origin, m, p, o) };
    const ana = await signIn(client, outbox, 'ana@example.test');
    const bo = await signIn(client, outbox, 'bo@example.test');
    const created = await call(client, API_ROUTES.createWorkspace, {
      key: ana.apiKey,
      body: { name: 'Household', currency: 'EUR', timeZone: 'Europe/Berlin' },
    });
    expect(created.status, created.text).toBe(201);
    const ws: string = created.body.data.workspace.workspaceId;
    const invite = (email: string) =>
      call(client, API_ROUTES.addMember, { params: { workspaceId: ws }, key: ana.apiKey, body: { email } });
    expect((await invite('bo@example.test')).status).toBeLessThan(300);
    expect(
      (await call(client, API_ROUTES.acceptInvitation, { params: { workspaceId: ws }, key: bo.apiKey }))
        .status,
    ).toBe(200);
    expect((await invite('carol@example.test')).status).toBeLessThan(300); // stays pending
    const cliKey = await call(client, API_ROUTES.createKey, { key: ana.apiKey, body: { label: 'cli' } });
    expect(cliKey.status, cliKey.text).toBeLessThan(300);
    const oldKey = await call(client, API_ROUTES.createKey, { key: ana.apiKey, body: { label: 'old' } });
    const oldId: string = oldKey.body.data.connection.connectionId;
    expect(
      (await call(client, API_ROUTES.revokeKey, { params: { connectionId: oldId }, key: ana.apiKey })).status,
    ).toBeLessThan(300);

    const sql = async (who: SignedIn, text: string, headers: Record<string, string> = {}) => {
      const res = await call(client, API_ROUTES.sqlExecute, {
        key: who.apiKey,
        headers: { 'x-workspace-id': ws, ...headers },
        body: { sql: text },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    };
    const entries = Array.from({ length: 40 }, (_, i) => {
      const month = String((i % 12) + 1).padStart(2, '0');
      const amount = i % 5 === 0 ? `${1000 + i}.5` : `-${(i * 7.123456789).toFixed(9)}`;
      const kind = i % 5 === 0 ? 'income' : 'spend';
      const category = i % 5 === 0 ? 'salary' : ['food', 'rent', 'fun'][i % 3];
      return `(TIMESTAMPTZ '2025-${month}-0${(i % 9) + 1} 10:11:12.${String(100000 + i * 7919).slice(-6)}+00', '${i % 2 ? 'checking' : 'card'}', ${amount}, '${i % 7 ? 'EUR' : 'USD'}', '${kind}', '${category}', 'ext-${i}')`;
    });
    await sql(
      ana,
      `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, external_id) VALUES ${entries.join(', ')}`,
      { 'x-change-group': randomUUID(), 'x-change-label': 'bank import' },
    );
    await sql(
      bo,
      "INSERT INTO ledger_entries (event_id, ts, account_id, amount, currency, kind) VALUES ('move-1', TIMESTAMPTZ '2025-06-01 09:00:00+00', 'checking', -250.25, 'EUR', 'transfer'), ('move-1', TIMESTAMPTZ '2025-06-01 09:00:00+00', 'savings', 250.25, 'EUR', 'transfer')",
    );
    await sql(
      ana,
      "INSERT INTO budget_lines (budget_month, direction, category, currency, planned_value, note) VALUES (DATE '2025-03-01', 'spend', 'food', 'EUR', 400, 'plan'), (DATE '2025-03-01', 'spend', 'rent', 'EUR', 1200.75, NULL), (DATE '2025-04-01', 'income', 'salary', 'EUR', 3000, NULL)",
    );
    await sql(
      ana,
      "INSERT INTO account_metadata (account_id, display_name, account_type, liquidity) VALUES ('checking', 'Main', 'checking', 'high')",
    );
    await sql(ana, 'UPDATE workspace_settings SET first_day_of_week = 7');
    // A mistake and its revert, before the move; a change to revert after it.
    const mistake = await sql(
      bo,
      "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2025-05-05 05:05:05+00', 'card', -999, 'EUR', 'spend', 'oops')",
    );
    const reverted = await call(client, API_ROUTES.revertChange, {
      params: { changeId: mistake.changeId },
      key: ana.apiKey,
      body: {},
    });
    expect(reverted.status, reverted.text).toBe(200);
    const later = await sql(
      bo,
      "UPDATE budget_lines SET planned_value = 450.5 WHERE category = 'food' AND budget_month = DATE '2025-03-01'",
    );
    // An idempotent write (its record is kept) and a confirmed dry run (its token is used once).
    const keyed = {
      key: ana.apiKey,
      headers: { 'x-workspace-id': ws, 'idempotency-key': 'move-keyed-1' },
      body: {
        sql: "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category) VALUES (TIMESTAMPTZ '2026-01-02 03:04:05.678901+00', 'cash', -12.345678, 'EUR', 'spend', 'food')",
      },
    };
    const first = await call(client, API_ROUTES.sqlExecute, keyed);
    expect(first.status, first.text).toBe(200);
    const dry = await call(client, API_ROUTES.sqlExecute, {
      key: ana.apiKey,
      headers: { 'x-workspace-id': ws },
      body: { sql: "DELETE FROM budget_lines WHERE category = 'salary'", dryRun: true },
    });
    const confirmToken: string = dry.body.data.confirmToken;
    const confirm = {
      key: ana.apiKey,
      headers: { 'x-workspace-id': ws },
      body: { sql: "DELETE FROM budget_lines WHERE category = 'salary'", confirmToken },
    };
    const confirmed = await call(client, API_ROUTES.sqlExecute, confirm);
    expect(confirmed.status, confirmed.text).toBe(200);

    const answers = async (send: typeof client.request) => {
      const on = { request: send };
      const out: Record<string, Json> = {};
      for (const kind of REPORT_KINDS) {
        const res = await call(on, API_ROUTES.report, {
          params: { kind },
          query: { from: RANGE.from, to: RANGE.to },
          key: bo.apiKey,
          headers: { 'x-workspace-id': ws },
        });
        expect(res.status, res.text).toBe(200);
        out[kind] = res.body.data;
      }
      const changes = await call(on, API_ROUTES.changes, {
        query: { limit: 100 },
        key: ana.apiKey,
        headers: { 'x-workspace-id': ws },
      });
      expect(changes.status, changes.text).toBe(200);
      out.changes = changes.body.data;
      for (const [who, key] of [
        ['ana', ana.apiKey],
        ['ana cli', cliKey.body.data.apiKey],
        ['bo', bo.apiKey],
      ]) {
        const me = await call(on, API_ROUTES.me, { key });
        expect(me.status, me.text).toBe(200);
        const { clock: _clock, connection, ...mine } = me.body.data; // the time of asking, of last use
        const { lastUsedAt: _used, ...connectionNow } = connection;
        out[`me ${who}`] = { ...mine, connection: connectionNow };
      }
      // (The OAuth client's key is written into the folder after these answers: counted apart.)
      const keys: Json[] = (await call(on, API_ROUTES.keys, { key: ana.apiKey })).body.data.keys;
      out.keys = keys
        .filter((k) => k.kind !== 'oauth')
        .map((k) => `${k.connectionId} ${k.label} ${k.kind} ${k.revokedAt ?? 'live'}`);
      out.oauthKeys = keys.filter((k) => k.kind === 'oauth').length;
      return out;
    };
    const before = await answers(client.request);
    expect(before.changes.changes.length).toBeGreaterThanOrEqual(7);
    expect(before.balances.rows.length).toBeGreaterThan(0);

    // Refused while the server runs on the folder; the target is not even opened.
    moved = await target();
    const config = parseConfig({ dataDir });
    const busy = await migrateTo(moved.url, config, { say: () => {} }).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(MigrateError);
    expect((busy as MigrateError).code).toBe('migrate_server_running');
    expect((busy as MigrateError).hint).toMatch(/Stop the server/);
    expect(await adminQuery(TABLES, [], moved.url)).toEqual([]);

    await embedded.app.close();
    // What no route writes here: OAuth rows, and an idempotency record past its expiry (not worth keeping).
    const direct = await openDatabase({ dataDir, migrate: false });
    try {
      await direct.query(
        `INSERT INTO expense_internal.oauth_clients (client_id, client_name, redirect_uris) VALUES ('agent-1', 'Agent', '["http://127.0.0.1/cb"]');
         INSERT INTO expense_internal.oauth_requests (client_id, redirect_uri, code_challenge, resource, expires_at)
           VALUES ('agent-1', 'http://127.0.0.1/cb', 'challenge', 'http://x/mcp', now() + interval '10 minutes');
         WITH g AS (
           INSERT INTO expense_internal.oauth_grants (client_id, user_id, resource, access, workspace_id, expires_at)
           SELECT 'agent-1', user_id, 'http://x/mcp', 'read', '${ws}', now() + interval '30 days'
           FROM expense_internal.users WHERE email = 'ana@example.test' RETURNING grant_id, user_id
         ), c AS (
           INSERT INTO expense_internal.oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at)
           SELECT repeat('c', 64), grant_id, 'http://127.0.0.1/cb', 'challenge', now() + interval '5 minutes' FROM g
         ), r AS (
           INSERT INTO expense_internal.oauth_refresh_tokens (token_hash, grant_id) SELECT repeat('d', 64), grant_id FROM g
         )
         INSERT INTO expense_internal.api_keys (user_id, label, key_hash, prefix, kind, access, workspace_id, oauth_grant_id, expires_at)
         SELECT user_id, 'Agent', repeat('e', 64), 'exp_oauth', 'oauth', 'read', '${ws}', grant_id, now() + interval '1 hour' FROM g;
         INSERT INTO expense_internal.idempotency_records (connection_id, idempotency_key, request_hash, state, expires_at)
           VALUES ('${ana.connection.connectionId}', 'expired', 'x', 'completed', now() - interval '1 hour')`,
      );
    } finally {
      await direct.close();
    }
    const folderBefore = await folderDigest(dataDir);

    const run = await cli(['migrate-to', moved.url], { EXPENSE_DATA_DIR: dataDir });
    expect(run.out, run.out).toMatch(/verified in the target's transaction/);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(
      /expense_internal\.idempotency_records +\d+ rows .*\(1 left behind: pending claims and expired/,
    );
    expect(run.out).toMatch(
      /workspace "Household" \(.*\): account_metadata 1, budget_lines 2, ledger_entries 43, workspace_settings 1; checksum \d+, equal/,
    );
    expect(run.out).toMatch(/left untouched/);
    expect(run.out).toMatch(/DATABASE_URL='postgres:/);
    expect(await folderDigest(dataDir)).toBe(folderBefore);

    // Every table, row by row, as in the folder (idempotency records: those worth keeping).
    const source = await openDatabase({ dataDir, migrate: false });
    let fromFolder: Record<string, string>;
    try {
      fromFolder = await pgliteFingerprint(source, {
        'expense_internal.idempotency_records': "t.state = 'completed' AND t.expires_at > now()",
      });
    } finally {
      await source.close();
    }
    const onTarget = await postgresFingerprint(moved.url);
    expect(onTarget).toEqual(fromFolder);
    const empty = Object.entries(fromFolder).filter(([, v]) => v.startsWith('0 '));
    expect(empty.map(([name]) => name)).toEqual([]); // every table held rows: the copy of each was exercised
    expect(Object.keys(fromFolder).length).toBeGreaterThanOrEqual(21);

    // A server on PostgreSQL: the same keys, the same answers.
    const pgOutbox = join(root, 'outbox-pg');
    const onPostgres = await serve({ databaseUrl: moved.url, mailOutbox: pgOutbox });
    const pgClient = { request: (m: string, p: string, o?: object) => request(onPostgres.origin, m, p, o) };
    expect(await answers(pgClient.request)).toEqual({ ...before, oauthKeys: 1 });
    const revoked = await call(pgClient, API_ROUTES.me, { key: oldKey.body.data.apiKey });
    expect(revoked.status).toBe(401);
    const replay = await call(pgClient, API_ROUTES.sqlExecute, keyed);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    // The token's commit is keyed by the token: used again, it replays the kept answer and deletes nothing more.
    const reuse = await call(pgClient, API_ROUTES.sqlExecute, confirm);
    expect(reuse.headers.get('idempotent-replayed')).toBe('true');
    expect(reuse.text).toBe(confirmed.text);
    const spent = await call(pgClient, API_ROUTES.sqlExecute, {
      ...confirm,
      headers: { ...confirm.headers, 'idempotency-key': 'another-key' },
    });
    expect([spent.status, spent.body.error?.code]).toEqual([409, 'confirmation_used']);
    // A migrated change reverts (its row images compare equal to the copied rows, to the microsecond).
    const undo = await call(pgClient, API_ROUTES.revertChange, {
      params: { changeId: later.changeId },
      key: ana.apiKey,
      body: {},
    });
    expect(undo.status, undo.text).toBe(200);
    const food = await call(pgClient, API_ROUTES.sqlQuery, {
      key: bo.apiKey,
      headers: { 'x-workspace-id': ws },
      body: { sql: "SELECT planned_value FROM budget_lines WHERE category = 'food'" },
    });
    expect(food.body.data.statements[0].rows).toEqual([{ planned_value: '400' }]);
    const history = await call(pgClient, API_ROUTES.changes, {
      query: { limit: 1 },
      key: ana.apiKey,
      headers: { 'x-workspace-id': ws },
    });
    expect(history.body.data.changes[0].changeId).toBe(undo.body.data.changeId);
    // The pending invitation waits for carol on the new server.
    const carol = await signIn(pgClient, pgOutbox, 'carol@example.test');
    const invitations = await call(pgClient, API_ROUTES.invitations, { key: carol.apiKey });
    expect(invitations.body.data.invitations.map((i: Json) => i.workspaceId)).toEqual([ws]);
    await onPostgres.app.close();
  });

  it('refuses a target that holds data, and leaves it as it was', { timeout: 120_000 }, async () => {
    const before = await postgresFingerprint(moved.url);
    const again = await cli(['migrate-to', moved.url], { EXPENSE_DATA_DIR: dataDir });
    expect(again.code).toBe(1);
    expect(again.out).toMatch(/\(migrate_target_not_empty\)/);
    expect(again.out).toMatch(/expense_internal\.users \(\d+ rows\)/);
    expect(again.out).toMatch(/hint: Migrate into a new, empty database/);
    expect(await postgresFingerprint(moved.url)).toEqual(before);
  });

  it('a copy that fails midway leaves the target empty', { timeout: 180_000 }, async () => {
    const config = parseConfig({ dataDir });
    // A target that refuses a row (a constraint the embedded database does not have), after the tables before it.
    const refusing = await target();
    const migrated = await openDatabase({ databaseUrl: refusing.url });
    await migrated.query(
      'ALTER TABLE public.ledger_entries ADD CONSTRAINT only_small_amounts CHECK (abs(amount) < 100)',
    );
    await migrated.close();
    const empty = await postgresFingerprint(refusing.url);
    const copied: string[] = [];
    const failed = await migrateTo(refusing.url, config, {
      say: () => {},
      onTable: ({ table }) => {
        copied.push(table);
      },
    }).catch((e: unknown) => e);
    expect((failed as MigrateError).code, String(failed)).toBe('migrate_copy_failed');
    expect((failed as MigrateError).message).toMatch(/while copying public\.ledger_entries, after \d+ of/);
    expect(copied).toContain('expense_internal.users');
    expect(await postgresFingerprint(refusing.url)).toEqual(empty);

    // A target whose connection ends after five tables.
    const dropped = await target();
    let ended = false;
    const lost = await migrateTo(dropped.url, config, {
      say: () => {},
      batchRows: 7,
      onTable: async ({ index }) => {
        if (index !== 4) return;
        await adminQuery(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [dropped.name],
        );
        ended = true;
      },
    }).catch((e: unknown) => e);
    expect(ended).toBe(true);
    expect((lost as MigrateError).code, String(lost)).toBe('migrate_copy_failed');
    expect((lost as MigrateError).message).toMatch(/after 5 of \d+ tables/);
    const after = await postgresFingerprint(dropped.url);
    expect(Object.entries(after).filter(([, v]) => !v.startsWith('0 '))).toEqual([
      ['expense_internal.change_history_limits', expect.any(String)],
      ['expense_internal.confirmation_secrets', expect.any(String)],
    ]);
  });
});
