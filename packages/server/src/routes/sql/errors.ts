import { GuardBusyError, GuardCheckError, GuardRunError } from '@expense/sql-guard';
import { ApiError, isApiError } from '../../http/api-error.js';
import { StorageError } from '../../storage/errors.js';

/** SQLSTATEs that mean the connection or the server went away, not that the statement was wrong. */
const isConnectionSqlstate = (s: string | undefined) =>
  s !== undefined && (s.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(s));

const RETRY_SAME_KEY =
  'Retry with the same Idempotency-Key: the kept result is replayed if the change was applied, and it runs once if not. Without a key, read the data to check before retrying.';

function unavailable(): ApiError {
  return new ApiError('database_unavailable', 'The database connection was lost; nothing was committed.', {
    retryable: true,
  });
}

/**
 * Guard refusals and runtime failures as API errors. Only what concerns the caller's own statement is
 * kept (code, message, hint, position, SQLSTATE, constraint, column); never internal details.
 */
export function toSqlApiError(error: unknown): unknown {
  if (isApiError(error)) return error;
  if (error instanceof GuardBusyError) {
    return new ApiError(
      'rate_limited',
      'The server is checking too many long SQL texts right now; nothing was run.',
      {
        hint: 'Wait a second and send it again, or send shorter statements.',
        retryable: true,
        details: { retryAfterSeconds: 1 },
        headers: { 'retry-after': '1' },
      },
    );
  }
  if (error instanceof GuardCheckError) {
    const v = error.violation;
    const details: Record<string, unknown> = {};
    if (v.position) details.position = v.position;
    if (v.statementIndex !== undefined) details.statementIndex = v.statementIndex;
    return new ApiError(v.code, v.message, {
      ...(v.hint ? { hint: v.hint } : {}),
      ...(Object.keys(details).length > 0 ? { details } : {}),
    });
  }
  if (error instanceof GuardRunError) {
    const d = error.details;
    switch (error.code) {
      case 'sql_execution_failed': {
        if (isConnectionSqlstate(d.sqlstate)) return unavailable();
        const details: Record<string, unknown> = { sqlstate: d.sqlstate };
        if (d.statementIndex !== undefined) details.statementIndex = d.statementIndex;
        if (d.position) details.position = d.position;
        if (d.constraint) details.constraint = d.constraint;
        if (d.column) details.column = d.column;
        return new ApiError('sql_execution_failed', error.message, {
          hint:
            error.hint ??
            'Fix the statement (see details.position and GET /schema) and send it again; nothing was changed.',
          details,
        });
      }
      case 'mutation_row_limit_exceeded':
        return new ApiError('mutation_row_limit_exceeded', `${error.message} Nothing was changed.`, {
          ...(error.hint ? { hint: error.hint } : {}),
          details: {
            statementIndex: d.statementIndex,
            affectedRows: d.affectedRows,
            maxAffectedRows: d.maxAffectedRows,
            scope: d.scope,
          },
        });
      case 'result_too_large':
        return new ApiError('result_too_large', `${error.message} Nothing was changed.`, {
          ...(error.hint ? { hint: error.hint } : {}),
          details: { statementIndex: d.statementIndex, maxResultBytes: d.maxResultBytes },
        });
      case 'deadline_exceeded':
        return new ApiError('deadline_exceeded', `${error.message} Nothing was changed.`, {
          ...(error.hint ? { hint: error.hint } : {}),
          details: { deadlineMs: d.deadlineMs, statementIndex: d.statementIndex },
        });
    }
  }
  if (error instanceof StorageError) {
    if (error.code === 'mutation_outcome_unknown') {
      return new ApiError(
        'mutation_outcome_unknown',
        'The connection was lost while committing: the change may or may not have been applied.',
        { hint: RETRY_SAME_KEY },
      );
    }
    if (error.code === 'database_unavailable' || error.code === 'database_closed') return unavailable();
  }
  return error; // the error handler logs it and answers internal_error
}
