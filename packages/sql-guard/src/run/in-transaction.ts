/** runInTransaction: `run` for callers without a transaction of their own. */
import { verifyDialect } from '../dialect/verify.js';
import type { Guard, RunOptions, RunResult, SqlSession } from '../types.js';
import { GuardRunError, mayComeFromSchemaChange, sqlStateOf } from './errors.js';
import { driftError } from './verification.js';
import { pinnedOutputSettings } from './wrapper-sql.js';

/** The output formats, set for the transaction only (the prelude must set what `run` then does not). */
const outputSettings = Object.entries(pinnedOutputSettings).map(
  ([name, value]) => `SET LOCAL ${name} = ${value}`,
);

/**
 * Opens a transaction on the session (BEGIN in the first batch's round trip), runs the SQL through the guard and
 * commits; on any error rolls back, so a script never commits in part. For sessions outside a transaction (a pg
 * client straight from its pool); a session already inside one should call `guard.run` and commit itself.
 * A caller's own prelude runs after BEGIN (it may set the role or a tenant setting with SET LOCAL).
 */
export async function runInTransaction(
  guard: Guard,
  session: SqlSession,
  sql: string,
  options: RunOptions,
): Promise<RunResult> {
  const around = options.around;
  const prelude = (check: string): string[] => [
    'BEGIN',
    ...(around?.prelude ? around.prelude(check) : [...outputSettings, `SELECT ${check}`]),
  ];
  let result: RunResult;
  try {
    result = await guard.run(session, sql, { ...options, around: { ...around, prelude } });
  } catch (error) {
    await session.query('ROLLBACK').catch(() => undefined);
    throw await driftBehind(guard, session, error);
  }
  if (around?.epilogue?.length) return result;
  // A deferred constraint fails at COMMIT: PostgreSQL's error, as the run's own would be, and nothing stays.
  const committed = await session.query('COMMIT').catch((error: unknown) => {
    const sqlstate = sqlStateOf(error);
    if (!sqlstate) throw error; // not PostgreSQL speaking (a lost connection): as it is
    throw new GuardRunError('sql_execution_failed', String((error as { message?: unknown }).message), {
      sqlstate,
    });
  });
  if (committed.command === 'ROLLBACK') {
    throw new GuardRunError('sql_execution_failed', 'COMMIT answered ROLLBACK: nothing was changed.');
  }
  return result;
}

/**
 * An error a schema change can cause (a column or table gone, a privilege revoked, a cached plan changed) on a
 * connection verified before: once the transaction is rolled back, the dialect is verified again, and the answer is
 * dialect_drift when the database no longer matches it (guard.md, "Migrations"). Inside a caller's own transaction
 * the aborted transaction cannot be read: there the next run verifies again (verification.ts).
 */
async function driftBehind(guard: Guard, session: SqlSession, error: unknown): Promise<unknown> {
  if (!(error instanceof GuardRunError) || error.code !== 'sql_execution_failed') return error;
  if (!mayComeFromSchemaChange(error.details)) return error;
  const differences = await verifyDialect(session, guard.dialect).catch(() => []);
  return differences.length > 0
    ? driftError(differences, 'and the statement failed on it; nothing was changed')
    : error;
}
