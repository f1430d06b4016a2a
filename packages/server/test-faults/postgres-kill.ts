// Connections killed with pg_terminate_backend mid-statement, mid-script and mid-commit (PostgreSQL).

import { randomUUID } from 'node:crypto';
import { adminQuery, freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import { openForSeeding, seed } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';
import { codeOf, eventScript, Scenario, type ScenarioReport, sqlRequest, waitFor } from './common.js';
import { LONG_SQL } from './long-query.js';

/** The pid of the one active client backend of `db` that is not us, once it shows up. */
async function activeBackend(dbName: string, where = "state = 'active'"): Promise<number | undefined> {
  let pid: number | undefined;
  await waitFor(
    async () => {
      const rows = await adminQuery<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'
         AND pid <> pg_backend_pid() AND ${where}`,
        [dbName],
      );
      pid = rows[0]?.pid;
      return pid !== undefined;
    },
    20_000,
    50,
  );
  return pid;
}

const terminate = (pid: number) => adminQuery('SELECT pg_terminate_backend($1)', [pid]);

export async function postgresKillScenarios(): Promise<ScenarioReport[]> {
  const db = await freshPostgres({ prefix: 'expense_faults_kill' });
  const reports: ScenarioReport[] = [];
  try {
    const seeding = await openForSeeding({ databaseUrl: db.url });
    const [k] = await seed(seeding, { users: 1, rowsPerWorkspace: 2000 });
    await seeding.close();
    const key = k!.apiKey;
    // A deferred constraint trigger that sleeps at COMMIT for rows marked 'slow-commit': a fixture of this
    // throw-away database only, so that the connection can be killed while the commit is in progress.
    await adminQuery(
      `CREATE FUNCTION public.fault_slow_commit() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
         SET search_path = pg_catalog AS $fn$ BEGIN IF NEW.category = 'slow-commit' THEN PERFORM pg_sleep(5); END IF; RETURN NULL; END $fn$`,
      [],
      db.url,
    );
    await adminQuery(
      `CREATE CONSTRAINT TRIGGER fault_slow_commit AFTER INSERT ON public.ledger_entries
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.fault_slow_commit()`,
      [],
      db.url,
    );
    const server = await startServerProcess({
      env: { DATABASE_URL: db.url, EXPENSE_RATE_PER_SECOND: '1000', EXPENSE_RATE_PER_DAY: '1000000' },
    });
    const count = async (where: string) => {
      const rows = await adminQuery<{ n: string }>(
        `SELECT count(*) AS n FROM public.ledger_entries WHERE ${where}`,
        [],
        db.url,
      );
      return Number(rows[0]!.n);
    };
    const serves = async (s: Scenario) => {
      const ms = await waitFor(
        async () =>
          (await sqlRequest(server.origin, key, ROUTE_PATHS.sqlQuery, 'SELECT 1 AS one')).status === 200,
        10_000,
      );
      s.numbers.servingAgainMs = ms;
      s.check(ms >= 0, 'the server did not serve again within 10 s');
    };
    try {
      {
        const s = new Scenario(
          'PostgreSQL: connection killed mid-statement',
          'a read whose backend is terminated answers 503 database_unavailable (retryable) and the next request is served',
        );
        const pending = sqlRequest(server.origin, key, ROUTE_PATHS.sqlQuery, LONG_SQL);
        const pid = await activeBackend(db.name);
        s.check(pid !== undefined, 'the statement never showed up in pg_stat_activity');
        if (pid) await terminate(pid);
        const res = await pending;
        s.numbers.status = res.status;
        s.numbers.code = codeOf(res);
        s.check(
          res.status === 503 && res.body?.error?.code === 'database_unavailable',
          `got ${res.status} ${codeOf(res)}`,
        );
        s.check(res.body?.error?.retryable === true, 'database_unavailable is not retryable');
        await serves(s);
        reports.push(s.report());
      }
      {
        const s = new Scenario(
          'PostgreSQL: connection killed mid-script',
          'a script of three INSERTs and a long SELECT killed in the SELECT leaves none of its rows (no partial scripts)',
        );
        const event = `kill-${randomUUID()}`;
        const pending = sqlRequest(
          server.origin,
          key,
          ROUTE_PATHS.sqlScript,
          `${eventScript(event)}; ${LONG_SQL}`,
        );
        const pid = await activeBackend(db.name);
        if (pid) await terminate(pid);
        const res = await pending;
        s.numbers.code = codeOf(res);
        s.check(
          res.status === 503 && res.body?.error?.code === 'database_unavailable',
          `got ${res.status} ${codeOf(res)}`,
        );
        const rows = await count(`event_id = '${event}'`);
        s.numbers.rowsOfScript = rows;
        s.check(rows === 0, `${rows} rows of the killed script were kept`);
        await serves(s);
        reports.push(s.report());
      }
      {
        const s = new Scenario(
          'PostgreSQL: connection killed mid-commit',
          'a write whose COMMIT is interrupted answers 500 mutation_outcome_unknown; the row is absent and so is its change record, and a retry with the same Idempotency-Key applies it exactly once, with exactly one record',
        );
        const externalId = `commit-${randomUUID()}`;
        const insert = `INSERT INTO ledger_entries (ts, account_id, amount, currency, kind, category, external_id) VALUES (TIMESTAMPTZ '2026-05-02T09:00:00Z', 'commit', -9.99, 'EUR', 'spend', 'slow-commit', '${externalId}')`;
        const idem = { 'idempotency-key': `faults-${randomUUID()}` };
        const pending = sqlRequest(server.origin, key, ROUTE_PATHS.sqlExecute, insert, idem);
        const pid = await activeBackend(db.name, "wait_event = 'PgSleep'");
        s.check(pid !== undefined, 'the commit never reached the sleeping trigger');
        if (pid) await terminate(pid);
        const res = await pending;
        s.numbers.code = codeOf(res);
        s.check(
          (res.status === 500 && res.body?.error?.code === 'mutation_outcome_unknown') ||
            (res.status === 503 && res.body?.error?.code === 'database_unavailable'),
          `got ${res.status} ${codeOf(res)}`,
        );
        const after = await count(`external_id = '${externalId}'`);
        s.numbers.rowsAfterKill = after;
        s.check(after === 0, 'the interrupted commit was applied');
        // The change history is written in the same transaction: neither the write nor its record.
        const records = async () => {
          const rows = await adminQuery<{ n: string; r: string }>(
            `SELECT count(*) AS n, (SELECT count(*) FROM expense_internal.change_rows r
               WHERE r.change_id IN (SELECT change_id FROM expense_internal.changes WHERE strpos(sql_text, $1) > 0)) AS r
             FROM expense_internal.changes WHERE strpos(sql_text, $1) > 0`,
            [externalId],
            db.url,
          );
          return { changes: Number(rows[0]!.n), rows: Number(rows[0]!.r) };
        };
        const recordedAfterKill = await records();
        s.numbers.changesAfterKill = recordedAfterKill.changes;
        s.check(
          recordedAfterKill.changes === 0 && recordedAfterKill.rows === 0,
          'a change record outlived its write',
        );
        // The retry commits (the trigger sleeps 5 s, nobody kills it this time).
        const retry = await sqlRequest(server.origin, key, ROUTE_PATHS.sqlExecute, insert, idem);
        s.numbers.retryStatus = retry.status;
        s.check(retry.status === 200, `the retry got ${retry.status} ${codeOf(retry)}`);
        const replay = await sqlRequest(server.origin, key, ROUTE_PATHS.sqlExecute, insert, idem);
        s.numbers.replayed = String(replay.headers['idempotent-replayed'] ?? 'no');
        s.check(
          replay.status === 200 && replay.headers['idempotent-replayed'] === 'true',
          `the repeat was not replayed (${replay.status})`,
        );
        const rows = await count(`external_id = '${externalId}'`);
        s.numbers.rowsAfterRetries = rows;
        s.check(rows === 1, `${rows} rows after the retry and the replay`);
        const recorded = await records();
        s.numbers.changesAfterRetries = recorded.changes;
        s.check(
          recorded.changes === 1 && recorded.rows === 1,
          `${recorded.changes} change records (${recorded.rows} row images) after the retry and the replay`,
        );
        await serves(s);
        reports.push(s.report());
      }
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
  }
  return reports;
}
