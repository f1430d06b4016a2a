/**
 * `@expense/sql-guard/pg`: a SqlSession over a node-postgres client that is in an open transaction.
 *
 *   const client = await pool.connect();
 *   await client.query('BEGIN');
 *   const result = await guard.run(pgSession(client, { cancelWith: pool }), sql, { mode: 'query' });
 *   await client.query('COMMIT'); // ROLLBACK on any error
 *
 * or, without a transaction of the caller's: `await runInTransaction(guard, pgSession(client), sql, { mode })`.
 */

import type { ClientBase, ClientConfig, FieldDef, Pool, QueryResult } from 'pg';
import pg from 'pg';
import { pinnedOutputSettings, pinnedSettingsCheck } from '../run/wrapper-sql.js';
import type { SessionResult, SqlSession } from '../types.js';

/**
 * The startup `options` for a pg Client or Pool whose connections run with the output formats the guard needs
 * as session settings (`new pg.Pool({ ..., options: pgOutputSettingsOption })`). Runs on such a connection can
 * verify the settings in a prelude instead of setting them in every transaction (three statements fewer per
 * request): `guard.run(session, sql, { mode, around: { prelude: (check) => [`SELECT ${check}`] } })`.
 */
export const pgOutputSettingsOption = Object.entries(pinnedOutputSettings)
  .map(([name, value]) => `-c ${name}=${value}`)
  .join(' ');

export { pinnedSettingsCheck };
export type PgSession = SqlSession;

export interface PgSessionOptions {
  /**
   * How to interrupt the statement in flight when the deadline passes: a Pool (one of its connections runs
   * `pg_cancel_backend`; give it a spare connection, a busy pool delays the cancel) or a client config /
   * connection string (a connection is opened for the cancel). It must log in as the same role as the
   * session's connection (or a member of pg_signal_backend). Without it the deadline still holds through
   * `statement_timeout`, set before every statement to the time left.
   */
  cancelWith?: Pool | ClientConfig | string;
}

// Every value as PostgreSQL's text output; `run` converts by type OID.
const rawText = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

export function pgSession(client: ClientBase, options: PgSessionOptions = {}): PgSession {
  const run = async (text: string): Promise<SessionResult[]> => {
    const result = (await client.query({ text, types: rawText })) as QueryResult | QueryResult[];
    return (Array.isArray(result) ? result : [result]).map(toSessionResult);
  };
  const session: PgSession = {
    engine: 'postgres',
    database: client,
    query: async (text) => (await run(text)).at(-1) as SessionResult,
    queryBatch: run,
  };
  const { cancelWith } = options;
  if (cancelWith !== undefined) {
    session.cancel = () => cancelBackend(client, cancelWith);
  }
  return session;
}

function toSessionResult(result: QueryResult): SessionResult {
  return {
    command: result.command,
    rowCount: result.rowCount,
    fields: (result.fields ?? []).map((f: FieldDef) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    rows: result.rows,
  };
}

async function cancelBackend(client: ClientBase, via: Pool | ClientConfig | string): Promise<void> {
  const pid = (client as unknown as { processID?: number }).processID;
  if (typeof pid !== 'number') return;
  const sql = 'SELECT pg_catalog.pg_cancel_backend($1)';
  if (isPool(via)) {
    await via.query(sql, [pid]);
    return;
  }
  const canceller = new pg.Client(via);
  try {
    await canceller.connect();
    await canceller.query(sql, [pid]);
  } finally {
    await canceller.end().catch(() => undefined);
  }
}

function isPool(via: Pool | ClientConfig | string): via is Pool {
  return typeof via === 'object' && typeof (via as Partial<Pool>).query === 'function';
}
