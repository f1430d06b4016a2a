import type { Limits, Mode, RunResult } from '@expense/sql-guard';
import type { Clock, SqlResultData, SqlWarning } from '@expense/wire';
import type { ActionBuilder } from '../../platform/http/actions.js';
import { wideWriteInstruction } from './wide-writes.js';

/** What a successful SQL request answers with, before it is JSON. */
export interface SqlSuccess {
  mode: Mode;
  dryRun: boolean;
  workspaceId: string;
  result: RunResult;
  limits: Limits;
  clock: Clock;
  /** The change-history entry of a committed write (none for reads, dry runs and scripts that wrote nothing). */
  changeId?: string | undefined;
  /** That change's short id, as GET /changes shows it (the form people read and type; every change route takes it). */
  shortId?: string | undefined;
  /** The instruction about carried-forward FX rates, when the request read them (features/fx/coverage.ts). */
  staleRates: string | undefined;
  /** A write's dry run: the token that commits the same SQL once (features/sql/confirm-tokens.ts). */
  token?: { confirmToken: string; confirmTokenExpiresAt: string } | undefined;
  /** A write's dry run: statements that would change every row of a relation, or most of them (wide-writes.ts). */
  warnings?: SqlWarning[] | undefined;
}

/** The SQL actions as JSON per builder: the same on every response until the public URL changes (at listen). */
const sqlActions = new WeakMap<ActionBuilder, { baseUrl: string; json: string }>();

/**
 * The success envelope of the SQL endpoints as JSON text: the exact bytes sent and, with an Idempotency-Key, kept.
 * The same as JSON.stringify(success(data, instructions, actions.sql())), with the actions serialised once.
 */
export function successEnvelope(success: SqlSuccess, actions: ActionBuilder): string {
  const { result, limits } = success;
  const data: SqlResultData = {
    workspaceId: success.workspaceId,
    committed: !success.dryRun,
    statements: result.statements,
    limits: {
      maxReturnedRows: limits.maxReturnedRows,
      maxAffectedRows: limits.maxAffectedRows,
      deadlineMs: limits.deadlineMs,
      maxResultBytes: limits.maxResultBytes,
    },
    clock: success.clock,
    ...(success.changeId ? { changeId: success.changeId } : {}),
    ...(success.changeId && success.shortId ? { shortId: success.shortId } : {}),
    ...success.token,
    ...(success.warnings?.length ? { warnings: success.warnings } : {}),
  };
  let kept = sqlActions.get(actions);
  if (kept?.baseUrl !== actions.baseUrl) {
    kept = { baseUrl: actions.baseUrl, json: JSON.stringify(actions.sql()) };
    sqlActions.set(actions, kept);
  }
  return `{"ok":true,"data":${JSON.stringify(data)},"instructions":${JSON.stringify(instructionsFor(success))},"actions":${kept.json}}`;
}

/** A dry run's next step: both ways to commit it, the token first when the dry run issued one. */
export function dryRunInstruction(what: 'statements' | 'revert', hasToken: boolean): string {
  const ran =
    what === 'revert'
      ? 'Dry run: the revert ran and was rolled back, nothing was saved. Show the user the rows; once they approve, '
      : 'Dry run: the statements ran and were rolled back, nothing was saved. Show the user the effect; once they approve, ';
  const key =
    'with an Idempotency-Key header (a fresh UUID per change: a retry with it replays the answer instead of applying twice)';
  return hasToken
    ? `${ran}commit it by sending the same request without dryRun, either with "confirmToken": data.confirmToken in the body (bound to this exact request and workspace, valid until data.confirmTokenExpiresAt, once; a retry with it replays the answer) or ${key}.`
    : `${ran}send the same request without dryRun and ${key}.`;
}

function instructionsFor({
  mode,
  dryRun,
  result,
  limits,
  staleRates,
  changeId,
  shortId,
  token,
  warnings,
}: SqlSuccess): string[] {
  const out: string[] = (warnings ?? []).map(wideWriteInstruction);
  if (staleRates) out.push(staleRates);
  // A read (a query, or a script of SELECTs only) says nothing about commits: it wrote nothing to commit.
  if (mode !== 'query' && result.statements.some((s) => s.command !== 'SELECT')) {
    out.push(
      dryRun
        ? dryRunInstruction('statements', token !== undefined)
        : changeId
          ? `Committed: every statement was applied, recorded as change ${changeId}${shortId ? ` (short id ${shortId}, as the console and the CLI show it)` : ''}; POST /changes/${changeId}/revert undoes it.`
          : 'Committed: every statement was applied.',
    );
  }
  if (result.statements.some((s) => s.truncated)) {
    out.push(
      `Only the first ${limits.maxReturnedRows} rows of a statement are returned (see totalRowCount): aggregate, filter, or page with ORDER BY ... LIMIT/OFFSET.`,
    );
  }
  return out;
}
