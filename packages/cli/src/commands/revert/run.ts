import { createHash } from 'node:crypto';
import type { ChangeData, ChangeRevertData } from '@expense/wire';
import type { ExpenseApi as Api } from '../../api/index.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import { changeRows, changeWhat } from '../history/command.js';
import { approve, workspaceLabel } from '../shared.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A short id must have at least this many hex digits (as git asks for 4). */
const MIN_PREFIX = 4;

function printRevert(ctx: Context, data: ChangeRevertData): void {
  const lines = data.rows.map(
    (r) =>
      `  ${r.table} ${JSON.stringify(r.key)}: ${r.before === null ? 'absent' : 'present'} → ${r.after === null ? 'deleted' : 'restored'}`,
  );
  if (!data.committed) {
    ctx.note(
      `${ctx.err.yellow('Dry run:')} reverting ${data.reverted} would restore ${data.rows.length} row(s):`,
    );
  } else {
    ctx.note(`${ctx.err.green('✓')} Reverted ${data.reverted} (as change ${data.changeId ?? 'none'}):`);
  }
  ctx.note(lines.join('\n'));
}

/** The change a full id or a unique prefix of one names (as `expense history` lists them), as git resolves. */
export async function resolveChange(api: Api, given: string): Promise<string> {
  const id = given.trim().toLowerCase();
  if (UUID.test(id)) return id;
  const hex = id.replace(/-/g, '');
  if (!/^[0-9a-f-]+$/.test(id) || hex.length < MIN_PREFIX || hex.length > 32)
    throw usageError(
      `"${given}" is not a change id.`,
      `Give a changeId from \`expense history\`, whole or its first ${MIN_PREFIX} or more characters.`,
    );
  const found = (await api.changes({ idPrefix: id, limit: 10 })).data.changes;
  if (found.length === 0)
    throw new CliError('not_found', `No change in this workspace starts with ${given}.`, ExitCode.failure, {
      hint: '`expense history` lists the changes (kept 90 days).',
    });
  if (found.length > 1)
    throw usageError(
      `${given} is ambiguous: it starts ${found.length === 10 ? '10 or more' : found.length} changes (${found
        .slice(0, 3)
        .map((c) => c.changeId)
        .join(', ')}${found.length > 3 ? ', …' : ''}).`,
      'Give more characters of the id.',
    );
  return found[0]!.changeId;
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
  const id = await resolveChange(api, changeId as string);
  const change = (await api.change(id)).data;
  if (change.change.group) {
    if (!ctx.json) ctx.note(`${id}: ${changeWhat(change.change)}`);
    return revertGroup(ctx, api, change, options);
  }
  const dry = await api.revertChange(id, { dryRun: true });
  if (!ctx.json || !options.yes) printRevert(ctx, dry.data);
  await approve(ctx, `Revert it on ${await workspaceLabel(ctx)}?`, options.yes);
  const done = await api.revertChange(id, {});
  if (ctx.json) return ctx.printJson(done.raw);
  printRevert(ctx, done.data);
}
