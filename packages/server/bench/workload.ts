/**
 * The reads the SQL benchmark measures, each as the server runs it (row-level security picks the workspace) and as
 * the floor runs it (no context: the workspace is the parameter $1). `--workload <name>` of sql-throughput.ts.
 */
export interface Workload {
  /** What it stands for, in the report. */
  title: string;
  sql: string;
  floorSql: string;
  /** Ledger rows seeded per workspace (the seed spaces them 37 minutes apart from 2026-01-01 UTC). */
  rowsPerWorkspace: number;
}

const COLUMNS = 'entry_id, ts, account_id, amount, currency, kind, category';
/** January 2026 in the workspace's zone (UTC in the seed), as the guide recommends: TIMESTAMPTZ bounds on ts. */
const JANUARY = "ts >= TIMESTAMPTZ '2026-01-01 00:00:00' AND ts < TIMESTAMPTZ '2026-02-01 00:00:00'";
/** The same month with DATE bounds: `timestamptz >= date` is not leakproof, so row-level security keeps it off the index. */
const JANUARY_DATES = "ts >= DATE '2026-01-01' AND ts < DATE '2026-02-01'";

export const WORKLOADS = {
  latest: {
    title: 'the latest 20 entries of the workspace',
    sql: `SELECT ${COLUMNS} FROM ledger_entries ORDER BY ts DESC LIMIT 20`,
    floorSql: `SELECT ${COLUMNS} FROM ledger_entries WHERE workspace_id = $1 ORDER BY ts DESC LIMIT 20`,
    rowsPerWorkspace: 500,
  },
  account: {
    title: "a small indexed read: 20 entries of one account (issue 28's), 10,000 rows",
    sql: `SELECT ${COLUMNS} FROM ledger_entries WHERE account_id = 'acct-1' ORDER BY ts DESC, amount LIMIT 20`,
    floorSql: `SELECT ${COLUMNS} FROM ledger_entries WHERE workspace_id = $1 AND account_id = 'acct-1' ORDER BY ts DESC, amount LIMIT 20`,
    rowsPerWorkspace: 10_000,
  },
  month: {
    title: 'a one-month aggregate with TIMESTAMPTZ bounds (spend by category, ~1,200 of 10,000 rows)',
    sql: `SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE ${JANUARY} AND kind = 'spend' GROUP BY category ORDER BY category`,
    floorSql: `SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE workspace_id = $1 AND ${JANUARY} AND kind = 'spend' GROUP BY category ORDER BY category`,
    rowsPerWorkspace: 10_000,
  },
  'month-date': {
    title:
      'the same aggregate with DATE bounds (what the guide recommended before issue 28: no index under RLS)',
    sql: `SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE ${JANUARY_DATES} AND kind = 'spend' GROUP BY category ORDER BY category`,
    floorSql: `SELECT category, sum(amount) AS total, count(*) AS entries FROM ledger_entries WHERE workspace_id = $1 AND ${JANUARY_DATES} AND kind = 'spend' GROUP BY category ORDER BY category`,
    rowsPerWorkspace: 10_000,
  },
} as const satisfies Record<string, Workload>;

export type WorkloadName = keyof typeof WORKLOADS;

export function workloadNamed(name: string): Workload {
  const workload = (WORKLOADS as Record<string, Workload>)[name];
  if (!workload) throw new Error(`unknown workload ${name}: one of ${Object.keys(WORKLOADS).join(', ')}`);
  return workload;
}

/** The default workload's statements (what the other benchmarks and the load suite send). */
export const QUERY_SQL = WORKLOADS.latest.sql;
export const FLOOR_SQL = WORKLOADS.latest.floorSql;
