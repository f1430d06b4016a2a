import { createHash } from 'node:crypto';
import { type ChangeData, type ChangeRevertData, errorEntry } from '@expense/wire';
import type { ExpenseApi as Api } from '../../api/index.js';
import type { Context } from '../../context.js';
import { CliError, usageError } from '../../errors.js';
import { ApiError } from '../../http/api-error.js';
import { changeRows, changeWhat, localMinute } from '../history/words.js';
import { approve, workspaceLabel } from '../shared.js';

/** A change must be named by at least this many hex digits (as git asks for 4). */
const MIN_PREFIX = 4;

/** A row as people name it: its date, words and amount (the revert's images, as the history's list names them). */
function rowName(table: string, image: Record<string, unknown> | null, timeZone: string): string {
  const row = image ?? {};
  const words = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));
  const date = words(row.ts ?? row.budget_month);
  const amount = words(row.amount ?? row.planned_value);
  const parts = [
    date &&
      (date.length > 10
        ? localMinute(date, timeZone).slice(0, 10)
        : date.replace(/^(\d{4}-\d{2})-01$/, '$1')),
    words(row.counterparty ?? row.note ?? row.category ?? row.display_name ?? row.account_id),
    amount && `${amount}${row.currency ? ` ${String(row.currency)}` : ''}`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : table;
}

/** What reverting does to one row: before = as it is now, after = as the revert leaves it. */
function revertLine(r: ChangeRevertData['rows'][number], committed: boolean, timeZone: string): string {
  const [verb, image] =
    r.before === null
      ? [committed ? 'added back' : 'adds back', r.after]
      : r.after === null
        ? [committed ? 'removed' : 'removes', r.before]
        : [committed ? 'changed back' : 'changes back', r.after];
  return `  ${verb}: ${rowName(r.table, image, timeZone)}`;
}

function printRevert(ctx: Context, data: ChangeRevertData, shortId: string, timeZone: string): void {
  const lines = data.rows.map((r) => revertLine(r, data.committed, timeZone));
  if (!data.committed) {
    ctx.note(`${ctx.err.yellow('Dry run:')} undoing change ${shortId} touches ${data.rows.length} row(s):`);
  } else {
    // The revert's short id (as `expense history` shows it); a server without it answers the whole id only.
    const own = data.shortId ?? data.changeId;
    const again = own ? ` (to undo this too: expense revert ${own})` : '';
    ctx.note(`${ctx.err.green('✓')} Undid change ${shortId}, ${data.rows.length} row(s)${again}:`);
  }
  ctx.note(lines.join('\n'));
}

/**
 * The change `given` names: its whole id, its short id (as `expense history` and the console show it) or a unique
 * prefix. The server resolves it in the workspace (ambiguous_change_id lists the candidates).
 */
export async function resolveChange(api: Api, given: string): Promise<ChangeData> {
  const id = given.trim().toLowerCase();
  const hex = id.replace(/-/g, '');
  if (!/^[0-9a-f-]+$/.test(id) || hex.length < MIN_PREFIX || hex.length > 32)
    throw usageError(
      `"${given}" is not a change id.`,
      `Give a change from \`expense history\`: its short id, its whole id, or its first ${MIN_PREFIX} or more characters.`,
    );
  try {
    return (await api.change(id)).data;
  } catch (error) {
    // Several changes match: wrong usage, as git's ambiguous short hash; the message names their short ids.
    if (error instanceof ApiError && error.code === 'ambiguous_change_id')
      throw usageError(`${given} is ambiguous: ${error.message}`, errorEntry('ambiguous_change_id').cliHint);
    throw error;
  }
}

/** The group id the reverts of a group join: derived from it, so that a resumed revert joins the same entry. */
function revertGroupId(groupId: string): string {
  const h = createHash('sha256').update(`expense-revert/1\n${groupId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Reverts a group (the batches of one import) as a sequence of per-change reverts, newest first, each within the
 * server's affected-row cap: a dry run of every change still to revert first (a conflict stops it before
 * anything changes), one approval, then the reverts, all joining one group of their own. A run cut short
 * (a conflict arising meanwhile, a lost connection) is resumed by running the same command again.
 */
async function revertGroup(
  ctx: Context,
  api: Api,
  data: ChangeData,
  options: { yes?: boolean | undefined },
): Promise<void> {
  const group = data.change.group!;
  const label = group.label || `group ${group.groupId}`;
  const todo = (data.members ?? []).filter((m) => m.revertedBy === undefined).reverse();
  if (todo.length === 0) {
    if (ctx.json) return ctx.printJson({ reverted: data.change.changeId, group, changes: [] });
    return ctx.note(`${label} is reverted already.`);
  }
  let rows = 0;
  for (const member of todo)
    rows += (await api.revertChange(member.changeId, { dryRun: true })).data.rows.length;
  if (!ctx.json)
    ctx.note(
      `${ctx.err.yellow('Dry run:')} reverting ${label} (${changeRows(data.change)}) would restore ${rows} row(s) in ${todo.length} revert${todo.length === 1 ? '' : 's'}.`,
    );
  await approve(ctx, `Revert ${label} on ${await workspaceLabel(ctx)}?`, options.yes);
  const changeGroup = { id: revertGroupId(group.groupId), label: `revert ${label}` };
  const done: string[] = [];
  for (const member of todo) {
    try {
      const result = await api.revertChange(member.changeId, { changeGroup });
      if (result.data.changeId) done.push(result.data.changeId);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      throw new CliError(
        error.code,
        `Reverted ${done.length} of ${todo.length} changes of ${label}, then: ${error.message}`,
        error.exitCode,
        {
          hint: `Run the same \`expense revert\` again to revert the rest.${error.hint ? ` ${error.hint}` : ''}`,
          ...(error.details ? { details: error.details } : {}),
        },
      );
    }
  }
  if (ctx.json) return ctx.printJson({ reverted: data.change.changeId, group, changes: done });
  ctx.note(`${ctx.err.green('✓')} Reverted ${label}: ${rows} row(s) restored in ${todo.length} revert(s).`);
}

/** `expense revert`: one change (or an import group) undone after its dry run and approval. */
export async function revert(ctx: Context, options: { yes?: boolean }, [changeId]: string[]): Promise<void> {
  const api = await ctx.api();
  const change = await resolveChange(api, changeId as string);
  const { changeId: id, shortId } = change.change;
  if (change.change.group) {
    if (!ctx.json) ctx.note(`${shortId}: ${changeWhat(change.change)}`);
    return revertGroup(ctx, api, change, options);
  }
  const dry = await api.revertChange(id, { dryRun: true });
  const zone = change.timeZone ?? 'UTC';
  if (!ctx.json || !options.yes) printRevert(ctx, dry.data, shortId, zone);
  await approve(ctx, `Undo change ${shortId} on ${await workspaceLabel(ctx)}?`, options.yes);
  const done = await api.revertChange(id, {});
  if (ctx.json) return ctx.printJson(done.raw);
  printRevert(ctx, done.data, shortId, zone);
}
