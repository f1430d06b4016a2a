/**
 * The one test of "the connection or the server went away" (not "the statement was wrong"), for every layer:
 * the PostgreSQL engine (a broken pooled client), the storage's error mapping, and the HTTP fallback for a
 * driver error that escaped unwrapped.
 */

/** SQLSTATEs besides class 08 (connection exception): admin, crash and startup shutdowns; too many connections. */
const CONNECTION_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_ERRNOS: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** node-postgres reports some losses only in words. */
const CONNECTION_MESSAGES =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|client was closed|cannot use a pool after calling end/i;

/** A SQLSTATE that means the connection or the server went away. */
export function isConnectionSqlstate(sqlstate: string | undefined): boolean {
  return sqlstate !== undefined && (sqlstate.startsWith('08') || CONNECTION_SQLSTATES.has(sqlstate));
}

/** An error (from pg, the socket, or the pool) that means the database connection was lost or refused. */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (isConnectionSqlstate(code) || CONNECTION_ERRNOS.has(code))) return true;
  return error instanceof Error && CONNECTION_MESSAGES.test(error.message);
}
