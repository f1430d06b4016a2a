// A statement that would run for minutes stops at the deadline, on both engines, and the server keeps serving.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminQuery, freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS } from '@expense/wire/route-paths';
import { openForSeeding, seed } from '../bench/lib/seed.js';
import { startServerProcess } from '../bench/lib/server-process.js';
import { codeOf, eventScript, Scenario, type ScenarioReport, sqlRequest, waitFor } from './common.js';
import { LONG_SQL } from './long-query.js';

export async function deadlineScenario(
  engine: 'postgres' | 'pglite',
  deadlineMs: number,
): Promise<ScenarioReport> {
  const s = new Scenario(
    `Deadline on ${engine === 'postgres' ? 'PostgreSQL' : 'PGlite'}`,
    `a read over 2,000^3 joined rows (minutes of work) answers 504 deadline_exceeded at the deadline (${deadlineMs} ms here), a script stopped by it keeps none of its rows, the statement stops in the database, and the next request is served`,
  );
  const db = engine === 'postgres' ? await freshPostgres({ prefix: 'expense_faults_deadline' }) : undefined;
  const dataDir = engine === 'pglite' ? mkdtempSync(join(tmpdir(), 'expense-faults-deadline-')) : undefined;
  const target = db ? { databaseUrl: db.url } : { dataDir: dataDir! };
  try {
    const seeding = await openForSeeding(target);
    const [k] = await seed(seeding, { users: 1, rowsPerWorkspace: 2000 });
    await seeding.close();
    const key = k!.apiKey;
    const env: Record<string, string> = db ? { DATABASE_URL: db.url } : { EXPENSE_DATA_DIR: dataDir! };
    const server = await startServerProcess({ env: { ...env, EXPENSE_SQL_DEADLINE_MS: String(deadlineMs) } });
    try {
      const res = await sqlRequest(server.origin, key, ROUTE_PATHS.sqlQuery, LONG_SQL);
      s.numbers.answeredAfterMs = Math.round(res.ms);
      s.numbers.code = codeOf(res);
      s.check(
        res.status === 504 && res.body?.error?.code === 'deadline_exceeded',
        `got ${res.status} ${codeOf(res)}`,
      );
      if (db) {
        const gone = await waitFor(async () => {
          const rows = await adminQuery(
            "SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()",
            [db.name],
          );
          return rows.length === 0;
        }, 5000);
        s.numbers.statementGoneAfterMs = gone;
        s.check(gone >= 0, 'the statement still runs in PostgreSQL after the answer');
      }
      const event = `deadline-${randomUUID()}`;
      const script = await sqlRequest(
        server.origin,
        key,
        ROUTE_PATHS.sqlScript,
        `${eventScript(event)}; ${LONG_SQL}`,
      );
      s.numbers.scriptCode = codeOf(script);
      s.check(script.status === 504, `the script got ${script.status} ${codeOf(script)}`);
      const next = await sqlRequest(
        server.origin,
        key,
        ROUTE_PATHS.sqlQuery,
        `SELECT count(*) AS n FROM ledger_entries WHERE event_id = '${event}'`,
      );
      s.numbers.nextStatus = next.status;
      s.numbers.nextAnsweredMs = Math.round(next.ms);
      s.check(next.status === 200, `the next request got ${next.status} ${codeOf(next)}`);
      const rows = Number(next.body?.data?.statements?.[0]?.rows?.[0]?.n ?? -1);
      s.numbers.rowsOfStoppedScript = rows;
      s.check(rows === 0, `${rows} rows of the stopped script were kept`);
    } finally {
      await server.stop();
    }
  } finally {
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  return s.report();
}
