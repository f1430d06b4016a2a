// The plans of a request's statements as PostgreSQL ran them: auto_explain (a contrib module of every PostgreSQL
// package) on a connection of the benchmark's own, loaded for that session only, with ANALYZE and BUFFERS, nested
// statements included (the triggers' and functions' own queries), its output sent to the client as NOTICEs. The
// benchmark sends each path's statements on that connection as the server sends them (the context SELECT of
// transactions.ts, the SQL role, the owner's queries of the store modules), and reads what every scan read.
import pg from 'pg';
import type { Queryable } from '../../src/platform/storage/database.js';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export interface LoggedPlan {
  query: string;
  ms: number;
  plan: PlanNode;
}

export function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** Rows a scan node read: returned, or removed by its filter or its recheck, in every loop. */
export function rowsRead(n: PlanNode): number {
  const perLoop =
    (n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0);
  return perLoop * (n['Actual Loops'] ?? 1);
}

/** The relations that hold rows of many workspaces (or users), and so must never be read beyond one's own. */
export const SHARED_RELATIONS = [
  'ledger_entries',
  'budget_lines',
  'account_metadata',
  'workspace_settings',
  'changes',
  'change_rows',
  'change_usage',
  'workspace_members',
  'workspaces',
  'users',
  'api_keys',
] as const;

/** One scan of a shared relation, as the report shows it. */
export interface Scan {
  relation: string;
  node: string;
  index?: string;
  cond?: string;
  filter?: string;
  read: number;
  loops: number;
  buffers: number;
}

export function scansOf(plan: PlanNode): Scan[] {
  const out: Scan[] = [];
  const walk = (n: PlanNode) => {
    const relation = n['Relation Name'];
    if (relation && (SHARED_RELATIONS as readonly string[]).includes(relation)) {
      // A bitmap heap scan's condition is on its bitmap index scan below it.
      const bitmap =
        n['Node Type'] === 'Bitmap Heap Scan'
          ? nodes(n).find((c) => c['Node Type'] === 'Bitmap Index Scan')
          : undefined;
      out.push({
        relation,
        node: n['Node Type'],
        ...(n['Index Name'] || bitmap?.['Index Name']
          ? { index: n['Index Name'] ?? bitmap?.['Index Name'] }
          : {}),
        ...(n['Index Cond'] || bitmap?.['Index Cond']
          ? { cond: n['Index Cond'] ?? bitmap?.['Index Cond'] }
          : {}),
        ...(n.Filter ? { filter: n.Filter } : {}),
        read: rowsRead(n),
        loops: n['Actual Loops'] ?? 1,
        buffers: (n['Shared Hit Blocks'] ?? 0) + (n['Shared Read Blocks'] ?? 0),
      });
    }
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(plan);
  return out;
}

/** A connection whose statements' plans are collected (auto_explain for this session, to the client). */
export class PlanRecorder {
  private readonly client: pg.Client;
  private logged: LoggedPlan[] = [];

  constructor(url: string) {
    this.client = new pg.Client({
      connectionString: url,
      options:
        '-c standard_conforming_strings=on -c DateStyle=ISO -c IntervalStyle=postgres -c extra_float_digits=1',
    });
    this.client.on('notice', (notice) => {
      const text = notice.message ?? '';
      const at = text.indexOf('plan:\n');
      if (at < 0) return;
      const duration = /duration: ([\d.]+) ms/.exec(text);
      try {
        const parsed = JSON.parse(text.slice(at + 'plan:\n'.length)) as {
          'Query Text': string;
          Plan: PlanNode;
        };
        this.logged.push({ query: parsed['Query Text'], ms: Number(duration?.[1] ?? 0), plan: parsed.Plan });
      } catch {}
    });
  }

  async open(): Promise<void> {
    await this.client.connect();
    await this.client.query(`LOAD 'auto_explain';
      SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_buffers = on;
      SET auto_explain.log_timing = on; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_format = json; SET auto_explain.log_level = notice; SET client_min_messages = notice`);
  }

  /** The owner's queries on this connection, as the store modules send them. */
  get owner(): Queryable {
    return {
      query: async <R>(text: string, params?: unknown[]) => {
        const r = await this.client.query(text, params);
        return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
      },
    };
  }

  /** Runs fn and returns the plans of every statement it ran (nested ones included), in order. */
  async record(fn: (q: Queryable) => Promise<void>): Promise<LoggedPlan[]> {
    this.logged = [];
    try {
      await fn(this.owner);
    } finally {
      // A failed step must not leave its transaction open for the next.
      await this.client.query('ROLLBACK').catch(() => {});
    }
    // Notices arrive before the answer of their statement: all are in.
    const out = this.logged;
    this.logged = [];
    return out;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
