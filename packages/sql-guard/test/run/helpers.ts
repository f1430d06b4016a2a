/** What the run tests share beyond their engines: a session that records what it sends, and run errors. */
import { expect } from 'vitest';
import { GuardRunError } from '../../src/run/errors.js';
import type { SqlSession } from '../../src/types.js';

/** The catalog read of the dialect verification (once per database connection), kept apart from `sent`. */
const isVerification = (text: string) =>
  text.includes('pg_catalog.pg_attribute') ||
  text.includes('pg_catalog.pg_constraint') ||
  text.includes('SAVEPOINT sql_guard_checks'); // around the CHECK constraints' read (column-widths.ts)

/** Records every text the guard sends through the session; the dialect verification's reads in `verified`. */
export function recording(session: SqlSession): { session: SqlSession; sent: string[]; verified: string[] } {
  const sent: string[] = [];
  const verified: string[] = [];
  const wrapped: SqlSession = {
    ...session,
    query: (text) => {
      (isVerification(text) ? verified : sent).push(text);
      return session.query(text);
    },
  };
  const batch = session.queryBatch?.bind(session);
  if (batch) {
    wrapped.queryBatch = (text, info) => {
      sent.push(text);
      return batch(text, info);
    };
  }
  return { session: wrapped, sent, verified };
}

/** The GuardRunError a run rejects with (fails the test when it resolves or rejects with something else). */
export async function runError(promise: Promise<unknown>): Promise<GuardRunError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GuardRunError);
  return error as GuardRunError;
}
