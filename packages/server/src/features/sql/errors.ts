import { GuardBusyError, GuardCheckError, GuardRunError, isRowSecurityRefusal } from '@expense/sql-guard';
import type { ErrorVariantOf, GuardErrorCode } from '@expense/wire';
import { ApiError, isApiError } from '../../platform/http/api-error.js';
import { storageApiError } from '../../platform/http/storage-errors.js';
import { isConnectionSqlstate } from '../../platform/storage/connection-failure.js';
import { USER_RELATIONS } from '../../platform/storage/names.js';
import {
  constraintHint,
  OTHER_WORKSPACE_HINT,
  quote,
  type RefusalFacts,
  VALUE_SYNTAX_HINT,
} from '../../platform/storage/relation-hints.js';
import { EngineBusyError } from './deadline.js';

type RunErrorDetails = GuardRunError['details'];

/** A refusal by PostgreSQL as sql_execution_failed, with the next step from the relations' catalogue. */
function executionFailed(message: string, d: RunErrorDetails, pgHint: string | undefined): ApiError {
  const details: Record<string, unknown> = { sqlstate: d.sqlstate };
  if (d.statementIndex !== undefined) details.statementIndex = d.statementIndex;
  if (d.position) details.position = d.position;
  if (d.constraint) details.constraint = d.constraint;
  if (d.column) details.column = d.column;
  // The balanced-transfer rule names how to send both legs at once: the catalogue's variant, in each reader's words.
  if (d.constraint === 'ledger_entries_transfer_balanced') {
    const { transfer } = factsOf(d);
    return new ApiError('sql_execution_failed', message, {
      ...(transfer === undefined
        ? { variant: 'transfer_unbalanced_unnamed' as const }
        : {
            variant: 'transfer_unbalanced' as const,
            facts: { event: quote(transfer.eventId), currency: transfer.currency, sum: transfer.sum },
          }),
      details,
    });
  }
  const own = refusalHint(d);
  if (own === undefined && d.sqlstate === '23502' && d.column) {
    return new ApiError('sql_execution_failed', message, {
      variant: 'not_null',
      facts: { column: d.column },
      details,
    });
  }
  const hint = own ?? pgHint;
  return new ApiError('sql_execution_failed', message, {
    ...(hint !== undefined ? { hint } : d.position === undefined ? { variant: 'no_position' as const } : {}),
    details,
  });
}

/** The hint for what the database refused, when the catalogue knows it. */
function refusalHint(d: RunErrorDetails): string | undefined {
  if (d.constraint) {
    const hint = constraintHint(d.constraint, factsOf(d));
    if (hint) return hint;
  }
  switch (d.sqlstate) {
    case '42501':
      return isRowSecurityRefusal(d) ? OTHER_WORKSPACE_HINT : undefined;
    case '22P02':
    case '22007':
    case '22008':
      return VALUE_SYNTAX_HINT;
    default:
      return undefined;
  }
}

/**
 * The values the database named in its detail: the migrations' triggers write JSON; a unique index writes
 * `Key (workspace_id, external_id)=(<uuid>, <value>) already exists.` (never under row-level security). The
 * workspace id is dropped.
 */
function factsOf(d: RunErrorDetails): RefusalFacts {
  const detail = d.detail;
  if (detail === undefined) return {};
  const key = /^Key \(workspace_id, external_id\)=\([0-9a-f-]{36}, ([\s\S]*)\) already exists\.$/.exec(
    detail,
  );
  if (key) return { externalId: key[1] as string };
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const p = parsed as Record<string, unknown>;
  if (d.constraint === 'ledger_entries_external_id_key' && typeof p.external_id === 'string')
    return { externalId: p.external_id };
  if (
    d.constraint === 'ledger_entries_transfer_balanced' &&
    typeof p.event_id === 'string' &&
    typeof p.currency === 'string' &&
    typeof p.sum === 'string'
  )
    return { transfer: { eventId: p.event_id, currency: p.currency, sum: p.sum } };
  return {};
}

/**
 * A constraint checked when the transaction ends (a deferred trigger: balanced transfers) fails at COMMIT, or
 * at the end of a dry run, outside the guard: PostgreSQL's error arrives as it is. Only integrity violations
 * (class 23) are the statement's fault; anything else stays an internal error.
 */
function deferredRefusal(error: unknown): ApiError | undefined {
  if (!(error instanceof Error)) return undefined;
  const e = error as Error & Record<string, unknown>;
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code === undefined || !/^23[0-9A-Z]{3}$/.test(code)) return undefined;
  const text = (key: string) =>
    typeof e[key] === 'string' && e[key] !== '' ? (e[key] as string) : undefined;
  // Only the user relations' own rules: an internal table's constraint is not the statement's fault.
  const table = text('table');
  if (table === undefined || !(USER_RELATIONS as readonly string[]).includes(table)) return undefined;
  const d: RunErrorDetails = { sqlstate: code };
  for (const key of ['constraint', 'column', 'table', 'detail', 'routine'] as const) {
    const value = text(key);
    if (value !== undefined) d[key] = value;
  }
  return executionFailed(error.message, d, text('hint'));
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
        variant: 'guard_busy',
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
    // A refusal the catalogue knows (its variant: every audience's words) keeps no hint of its own.
    return new ApiError(v.code, v.message, {
      ...(v.variant !== undefined
        ? { variant: v.variant as ErrorVariantOf<GuardErrorCode>, ...(v.facts ? { facts: v.facts } : {}) }
        : v.hint
          ? { hint: v.hint }
          : {}),
      ...(Object.keys(details).length > 0 ? { details } : {}),
    });
  }
  if (error instanceof GuardRunError) {
    const d = error.details;
    switch (error.code) {
      case 'sql_execution_failed':
        if (isConnectionSqlstate(d.sqlstate)) return new ApiError('database_unavailable');
        return executionFailed(error.message, d, error.hint);
      case 'mutation_row_limit_exceeded':
        // The catalogue's hint (every audience's words for it), not the guard's.
        return new ApiError('mutation_row_limit_exceeded', `${error.message} Nothing was changed.`, {
          details: {
            statementIndex: d.statementIndex,
            affectedRows: d.affectedRows,
            maxAffectedRows: d.maxAffectedRows,
            scope: d.scope,
          },
        });
      case 'result_too_large':
        return new ApiError('result_too_large', `${error.message} Nothing was changed.`, {
          details: { statementIndex: d.statementIndex, maxResultBytes: d.maxResultBytes },
        });
      case 'deadline_exceeded':
        return new ApiError('deadline_exceeded', `${error.message} Nothing was changed.`, {
          ...(error instanceof EngineBusyError ? { variant: 'engine_busy' as const } : {}),
          details: { deadlineMs: d.deadlineMs, statementIndex: d.statementIndex },
        });
    }
  }
  const atCommit = deferredRefusal(error);
  if (atCommit) return atCommit;
  return storageApiError(error) ?? error; // otherwise the error handler logs it and answers internal_error
}
