// Shows what one request sends to PostgreSQL: turns on log_statement for a throw-away database, sends one
// warmed-up request per endpoint, and prints the statements PostgreSQL logged for it (one line = one message,
// i.e. one round trip). Needs read access to the PostgreSQL log (/var/log/postgresql, as on this machine).
//   node --conditions=@expense/source --import tsx bench/round-trips.ts [--workload latest|account|month|month-date]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { adminQuery, freshPostgres } from '@expense/test-kit';
import { ROUTE_PATHS, type RoutePath } from '@expense/wire/route-paths';
import { apiPath, callRoute } from './lib/http.js';
import { arg } from './lib/results.js';
import { openForSeeding, seed } from './lib/seed.js';
import { startServerProcess } from './lib/server-process.js';
import { workloadNamed } from './workload.js';

const QUERY_SQL = workloadNamed(arg('workload', 'latest')).sql;

const LOG_DIR = '/var/log/postgresql';
const logFile = () =>
  readdirSync(LOG_DIR)
    .filter((f) => f.endsWith('.log'))
    .map((f) => join(LOG_DIR, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;

const db = await freshPostgres({ prefix: 'expense_rt' });
try {
  const s = await openForSeeding({ databaseUrl: db.url });
  const [k] = await seed(s, { users: 1, rowsPerWorkspace: 50 });
  await s.close();
  const server = await startServerProcess({ env: { DATABASE_URL: db.url, EXPENSE_RATE_PER_SECOND: '1000' } });
  try {
    const requests: [RoutePath, string, string][] = [
      [ROUTE_PATHS.sqlQuery, QUERY_SQL, ''],
      [
        ROUTE_PATHS.sqlExecute,
        "INSERT INTO ledger_entries (ts, account_id, amount, currency, kind) VALUES (TIMESTAMPTZ '2026-01-01T00:00:00Z', 'rt', -1, 'USD', 'spend')",
        '',
      ],
    ];
    for (const [route, sql] of requests)
      await callRoute(server.origin, route, { key: k!.apiKey, body: { sql } });
    await adminQuery(`ALTER DATABASE ${db.name} SET log_statement = 'all'`);
    // New sessions pick the setting up: end the pool's current ones.
    await adminQuery(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [db.name],
    );
    await callRoute(server.origin, ROUTE_PATHS.sqlQuery, { key: k!.apiKey, body: { sql: QUERY_SQL } });
    for (const [route, sql] of requests) {
      const path = apiPath(route);
      const file = logFile();
      const before = readFileSync(file, 'utf8').length;
      const res = await callRoute(server.origin, route, { key: k!.apiKey, body: { sql } });
      await new Promise((r) => setTimeout(r, 300));
      const lines = readFileSync(file, 'utf8')
        .slice(before)
        .split(/\n(?=\d{4}-\d{2}-\d{2} )/) // one entry per log line; statements continue on tab-indented lines
        .map((l) => l.replace(/\n\t/g, ' ').replace(/\s+/g, ' '))
        .filter((l) => l.includes(db.name) && /LOG: +(statement|execute)/.test(l))
        .map((l) => l.replace(/^.*?LOG: +/, ''));
      console.log(`\n${path} → ${res.status}: ${lines.length} round trip(s)`);
      for (const l of lines) console.log(`  ${l.length > 4000 ? `${l.slice(0, 4000)}…` : l}`);
    }
  } finally {
    await server.stop();
  }
} finally {
  await db.drop();
}
