/** The dialect verified against each database connection `run` meets, once per connection. */
import { describeDifferences, verifyDialect } from '../dialect/verify.js';
import type { Dialect, SqlSession } from '../types.js';
import { GuardRunError } from './errors.js';

/** Returns `verify(session)`: resolves once the session's database matches the dialect; the answer is kept. */
export function dialectVerification(dialect: Dialect): (session: SqlSession) => Promise<void> {
  const verified = new WeakMap<object, Promise<void>>();
  return (session) => {
    const key = session.database ?? session;
    let verifying = verified.get(key);
    if (!verifying) {
      verifying = verifyOnce(session, dialect);
      verified.set(key, verifying);
      // A failed verification is not kept: the next run asks the database again.
      verifying.catch(() => verified.delete(key));
    }
    return verifying;
  };
}

async function verifyOnce(session: SqlSession, dialect: Dialect): Promise<void> {
  let differences: Awaited<ReturnType<typeof verifyDialect>>;
  try {
    differences = await verifyDialect(session, dialect);
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown };
    if (typeof e?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) throw error;
    throw new GuardRunError(
      'sql_execution_failed',
      `The dialect could not be verified against the database: ${String(e.message)}; nothing was run.`,
      { sqlstate: e.code },
      "The session's role must be able to read the catalog (pg_class, pg_attribute) and call to_regclass and has_column_privilege.",
    );
  }
  if (differences.length === 0) return;
  throw new GuardRunError(
    'dialect_drift',
    `The dialect differs from the database, so nothing was run: ${describeDifferences(differences)}`,
    { differences },
    'Read the dialect from the database again (introspectDialect), or bring the database back to the dialect.',
  );
}
