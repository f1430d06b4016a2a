import type { ChangeRevertData } from '@expense/wire';
import type { Command } from 'commander';
import type { Context } from '../context.js';
import type { Action } from './action.js';
import { approve, workspaceLabel } from './shared.js';

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

export function registerRevert(program: Command, action: Action): void {
  program
    .command('revert')
    .argument('<changeId>', 'a change from `expense history`')
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .description('Undo one change after showing its dry run and asking for approval')
    .action(
      action(async (ctx, options: { yes?: boolean }, [changeId]) => {
        const api = await ctx.api();
        const id = changeId as string;
        const dry = await api.revertChange(id, { dryRun: true });
        if (!ctx.json || !options.yes) printRevert(ctx, dry.data);
        await approve(ctx, `Revert it on ${await workspaceLabel(ctx)}?`, options.yes);
        const done = await api.revertChange(id, {});
        if (ctx.json) return ctx.printJson(done.raw);
        printRevert(ctx, done.data);
      }),
    );
}
