/**
 * The dialect verified against each database connection `run` meets, once per connection; and, the first time a
 * run there needs them, the widths of its relations' columns read from the same catalog (column-widths.ts).
 */
import { describeDifferences, verifyDialect } from '../dialect/verify.js';
import type { Dialect, DialectDifference, SqlSession } from '../types.js';
import { type ColumnWidths, readColumnWidths } from './column-widths.js';
import { GuardRunError, schemaChangeCount, sqlStateOf } from './errors.js';

/**
 * `verify(session, widths)` resolves once the session's database matches the dialect; with `widths`, to the
 * column widths of the dialect's relations there (read on the first such call; `inTransaction`: the session is
 * expected inside a transaction block, see readColumnWidths). Both answers are kept per database connection; a
 * failed one is not (the next run asks the database again).
 */
export type Verify = (
  session: SqlSession,
  widths: boolean,
  inTransaction: boolean,
) => Promise<ColumnWidths | undefined>;

export function dialectVerification(dialect: Dialect): Verify {
  const verified = new WeakMap<object, Kept<undefined>>();
  const read = new WeakMap<object, Kept<ColumnWidths>>();
  // An answer is kept until a run meets an error that a schema change can cause (a column or table gone, a privilege
  // revoked, a cached plan changed: errors.ts counts them); then each connection asks the database again.
  const once = <T>(kept: WeakMap<object, Kept<T>>, key: object, start: () => Promise<T>): Promise<T> => {
    const seen = schemaChangeCount();
    const found = kept.get(key);
    if (found && found.seen === seen) return found.answer;
    const answer = start();
    const entry = { answer, seen };
    kept.set(key, entry);
    answer.catch(() => {
      if (kept.get(key) === entry) kept.delete(key);
    });
    return answer;
  };
  return (session, widths, inTransaction) => {
    const key = session.database ?? session;
    const verifying = once(verified, key, () => verifyOnce(session, dialect));
    if (!widths) return verifying;
    return verifying.then(() =>
      once(read, key, () =>
        catalogRead(() => readColumnWidths(session, Object.keys(dialect.relations), { inTransaction })),
      ),
    );
  };
}

/** An answer kept for a connection, and the count of schema-change errors when it was asked. */
interface Kept<T> {
  answer: Promise<T>;
  seen: number;
}

async function verifyOnce(session: SqlSession, dialect: Dialect): Promise<undefined> {
  const differences = await catalogRead(() => verifyDialect(session, dialect));
  if (differences.length === 0) return undefined;
  throw driftError(differences, 'so nothing was run');
}

/** dialect_drift naming every difference; `outcome` says what became of the request. */
export function driftError(differences: DialectDifference[], outcome: string): GuardRunError {
  return new GuardRunError(
    'dialect_drift',
    `The dialect differs from the database, ${outcome}: ${describeDifferences(differences)}`,
    { differences },
    'Read the dialect from the database again (introspectDialect), or bring the database back to the dialect.',
  );
}

/** A catalog read; PostgreSQL's refusal of it becomes sql_execution_failed (nothing of the request ran). */
async function catalogRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    // verifyDialect reports a failed catalog read as introspection_failed, with PostgreSQL's SQLSTATE.
    const sqlstate = sqlStateOf(error) ?? sqlStateOf({ code: (error as { sqlstate?: unknown }).sqlstate });
    if (!sqlstate) throw error;
    throw new GuardRunError(
      'sql_execution_failed',
      `The dialect could not be verified against the database: ${String((error as { message?: unknown }).message)}; nothing was run.`,
      { sqlstate },
      "The session's role must be able to read the catalog (pg_class, pg_attribute, pg_type, pg_constraint, pg_inherits) and call to_regclass, has_column_privilege and pg_get_expr.",
    );
  }
}
