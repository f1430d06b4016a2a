import type { SqlResultData } from '@expense/wire';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { effectLines, renderRows, truncationNotice } from '../../output/sql-result.js';
import { scriptMayWrite } from '../../sql/statements.js';
import { approve, callSql, type SqlEndpoint, showSql, sqlFrom, workspaceLabel } from '../shared.js';
import type { WriteOptions } from './options.js';

/** Prints what a write did (or, in a dry run, would do), and rows a RETURNING clause or SELECT gave. */
function printEffect(ctx: Context, data: SqlResultData): void {
  if (ctx.json) {
    ctx.printJson(data);
    return;
  }
  for (const s of data.statements) {
    if (s.columns.length && s.rows.length) {
      ctx.io.stdout.write(renderRows(s, 'table', { maxWidth: ctx.tableWidth, colours: ctx.out }));
    }
    const notice = truncationNotice(s, data.limits.maxReturnedRows);
    if (notice) ctx.note(ctx.err.yellow(`Statement ${s.index + 1}: ${notice}`));
  }
  const lines = effectLines(data).join('\n');
  const wrote = data.statements.some((s) => s.command !== 'SELECT');
  if (!data.committed) ctx.note(`${ctx.err.yellow('Dry run:')} rolled back, nothing was changed.\n${lines}`);
  else if (wrote) {
    // The short id, as `expense history` and the console show it and `expense revert` takes it.
    const id = data.shortId ?? data.changeId;
    const change = id ? ` as change ${id} (undo: expense revert ${id})` : '';
    ctx.note(`${ctx.err.green('✓')} Committed${change}.\n${lines}`);
  } else ctx.note(lines);
}

async function runWrite(
  ctx: Context,
  endpoint: SqlEndpoint,
  sql: string,
  options: WriteOptions,
  needsApproval: boolean,
) {
  await ctx.key(); // signed in at all? Asking to approve what cannot run helps no one.
  const where = await workspaceLabel(ctx);
  if (options.dryRun) {
    if (!ctx.json) showSql(ctx, `Dry run on ${where}:`, sql);
  } else if (needsApproval) {
    if (!ctx.json || !options.yes) showSql(ctx, `This will run on ${where}:`, sql);
    await approve(ctx, 'Run it?', options.yes);
  }
  const result = await callSql(ctx, endpoint, sql, { dryRun: Boolean(options.dryRun) });
  const raw = result.raw as SqlResultData;
  printEffect(ctx, ctx.json ? raw : result.data);
}

/** `expense exec`: one write, shown and approved first. */
export async function exec(ctx: Context, options: WriteOptions, [arg]: string[]): Promise<void> {
  const sql = await sqlFrom(ctx, arg, options.file);
  if (!scriptMayWrite(sql)) {
    throw usageError(
      '`expense exec` runs one write (INSERT, UPDATE or DELETE); this is a read, and nothing was sent.',
      'Run reads with `expense query "..."` (or scripts with `expense sql`).',
    );
  }
  await runWrite(ctx, '/sql/execute', sql, options, true);
}

/** `expense sql`: a script, run atomically, approved once when it writes. */
export async function script(ctx: Context, options: WriteOptions, [arg]: string[]): Promise<void> {
  const sql = await sqlFrom(ctx, arg, options.file);
  await runWrite(ctx, '/sql', sql, options, scriptMayWrite(sql));
}
