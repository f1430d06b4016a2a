import { randomBytes } from 'node:crypto';
import { pinnedOutputSettings, type SessionResult } from '@expense/sql-guard';
import type { UserContext, UserScope } from './database.js';
import { InvalidContextError } from './errors.js';
import { INTERNAL_SCHEMA } from './names.js';

/**
 * The statements that open a user-SQL transaction under its context (migrations 0006, 0008, 0016, 0017). Who
 * sends them, and in which round trip, is decided by the caller: `Database.userTransaction` in a round trip of
 * their own, the SQL endpoints' pipeline (src/features/sql/pipeline.ts) in front of the guard's first batch.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function checkedUuid(value: unknown, field: 'userId' | 'workspaceId' | 'connectionId'): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new InvalidContextError(field);
  return value.toLowerCase();
}

/**
 * Text of the error `open_user_context` raises when a workspace lookup finds nothing. The random part keeps a
 * user statement's own error from looking like it (the text is never shown to anyone).
 */
const NOT_RESOLVED = `expense_workspace_not_resolved_${randomBytes(8).toString('hex')}`;

/** True for the error of a context whose workspace lookup found nothing (raw, or as the guard reports it). */
export function isWorkspaceNotResolved(error: unknown): boolean {
  return error instanceof Error && error.message.includes(NOT_RESOLVED);
}

/** BEGIN, READ ONLY for a read. */
export const beginStatement = (ctx: UserContext): string => (ctx.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');

/**
 * The guard's output formats for one transaction, for a connection that cannot keep them as session settings
 * (behind a transaction-mode pooler): `set_config(..., true)` (= SET LOCAL) as select-list items of the context
 * SELECT, in front of the guard's settings check, which then verifies them. One statement instead of three SET
 * LOCAL statements in front of it (three fewer results to parse per request).
 */
const OUTPUT_SETTINGS_ITEMS: string = Object.entries(pinnedOutputSettings)
  .map(([name, value], i) => {
    if (!/^[A-Za-z_]+$/.test(name) || !/^[A-Za-z0-9_]+$/.test(value))
      throw new Error('output settings: refusing an unexpected value');
    return `pg_catalog.set_config('${name}', '${value}', true) AS output_setting_${i}, `;
  })
  .join('');

/** A workspace given outright, one the user asked for (membership checked), or the key's saved one. */
type WorkspaceKind = 'given' | 'member' | 'saved';

function workspaceOf(ctx: UserContext): { kind: WorkspaceKind; id: string } {
  const workspace = ctx.workspaceId;
  if (typeof workspace === 'string') return { kind: 'given', id: checkedUuid(workspace, 'workspaceId') };
  return 'requested' in workspace
    ? { kind: 'member', id: checkedUuid(workspace.requested, 'workspaceId') }
    : { kind: 'saved', id: checkedUuid(workspace.savedBy, 'connectionId') };
}

/**
 * The statement that sets a user-SQL transaction's context: one call of `open_user_context` (migration 0045),
 * which finds the workspace as the owner (or raises NOT_RESOLVED, so nothing behind it runs), sets the user and
 * workspace settings, the workspace's TimeZone and search_path for the transaction, switches to the SQL role last,
 * and returns the workspace and its zone. It depends on nothing left on the connection by an earlier transaction
 * (no PREPARE), so it works the same through a transaction-mode pooler; PL/pgSQL keeps the function's plans per
 * server session. `settingsCheck` (the guard's, a select-list expression) is evaluated first, as the owner, after
 * the output settings where the connection cannot keep them (`per-transaction`). Its column: context, `<workspace id> <time zone>` (see scopeOf).
 * Throws InvalidContextError for ids that are not UUIDs.
 */
export function contextSelect(
  ctx: UserContext,
  settingsCheck?: string,
  outputSettings: 'pinned' | 'per-transaction' = 'pinned',
): string {
  const userId = checkedUuid(ctx.userId, 'userId');
  const { kind, id } = workspaceOf(ctx);
  const check = settingsCheck === undefined ? '' : `${settingsCheck} AS guard_settings, `;
  const pin = outputSettings === 'per-transaction' ? OUTPUT_SETTINGS_ITEMS : '';
  return `SELECT ${pin}${check}${changeSetup(ctx)}${INTERNAL_SCHEMA}.open_user_context('${userId}', '${id}', '${kind}', '${NOT_RESOLVED}') AS context`;
}

/**
 * `begin_change(...)` (migration 0017) as a select-list item in front of open_user_context, so it runs as the
 * owner before the role switch. The SQL text travels as an escape string literal (backslashes and quotes
 * doubled), which reads the same whatever standard_conforming_strings says.
 */
function changeSetup(ctx: UserContext): string {
  if (!ctx.change) return '';
  const connectionId = checkedUuid(ctx.change.connectionId, 'connectionId');
  if (!/^[a-z]{1,20}$/.test(ctx.change.endpoint) || ctx.change.sql.includes('\0')) {
    throw new Error('change: refusing an unexpected value');
  }
  const sql = escapeText(ctx.change.sql);
  const { group } = ctx.change;
  if (group && !UUID.test(group.id)) throw new Error('change: refusing an unexpected value');
  const grouped = group
    ? `${INTERNAL_SCHEMA}.set_change_group('${group.id.toLowerCase()}', E'${escapeText(group.label)}') AS change_group, `
    : '';
  return `${INTERNAL_SCHEMA}.begin_change('${ctx.change.endpoint}', '${connectionId}', E'${sql}') AS change_id, ${grouped}`;
}

/** Text for an escape string literal (backslashes and quotes doubled); NUL is refused by the callers. */
function escapeText(text: string): string {
  if (text.includes('\0')) throw new Error('change: refusing an unexpected value');
  return text.replace(/\\/g, '\\\\').replace(/'/g, "''");
}

/** What the context SELECT's row says: the workspace the transaction runs in, its time zone, the change opened. */
export function scopeOf(result: SessionResult | undefined): UserScope {
  const row = result?.rows[0];
  if (!row) throw new Error('The context SELECT returned no row.');
  // `<uuid> <zone>`: a uuid is 36 characters, an IANA zone name has no space.
  const context = String(row.context);
  if (context.charAt(36) !== ' ') throw new Error('The context SELECT returned an unexpected context.');
  const scope = { workspaceId: context.slice(0, 36), timeZone: context.slice(37) || 'UTC' };
  return row.change_id ? { ...scope, changeId: String(row.change_id) } : scope;
}
