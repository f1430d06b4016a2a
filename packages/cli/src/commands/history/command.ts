import type { Change } from '@expense/wire';
import type { Command } from 'commander';
import { renderTable } from '../../output/table.js';
import type { Action } from '../action.js';

/** "INSERT 3 ledger_entries, UPDATE 1 workspace_settings" */
export function changeSummary(statements: { table: string; command: string; rowCount: number }[]): string {
  return statements.map((s) => `${s.command} ${s.rowCount} ${s.table}`).join(', ') || 'no rows';
}

/** What a history entry did, in a few words: a group by its label, a change by its SQL. */
export function changeWhat(c: Change): string {
  if (c.group) {
    const reverted =
      c.group.reverted === 0
        ? ''
        : c.group.reverted === c.group.changes
          ? ' (reverted)'
          : ` (${c.group.reverted} of ${c.group.changes} changes reverted)`;
    return `${c.group.label || c.endpoint}${reverted}`;
  }
  return `${c.endpoint}${c.revertedBy ? ' (reverted)' : ''}: ${c.sql.replace(/\s+/g, ' ').slice(0, 60)}`;
}

export function changeRows(c: Change): string {
  if (!c.group) return changeSummary(c.statements);
  const { rowCount, changes } = c.group;
  return `${rowCount} row${rowCount === 1 ? '' : 's'} in ${changes} change${changes === 1 ? '' : 's'}`;
}

export function registerHistory(program: Command, action: Action): void {
  program
    .command('history')
    .option('-n, --limit <n>', 'how many changes (1 to 100)', '20')
    .description(
      'What was changed in the workspace, newest first (undo one with `expense revert <changeId or a unique prefix>`)',
    )
    .action(
      action(async (ctx, options: { limit: string }) => {
        const limit = Number(options.limit);
        const result = await (await ctx.api()).changes({
          ...(Number.isInteger(limit) ? { limit } : {}),
        });
        if (ctx.json) return ctx.printJson(result.raw);
        const { changes } = result.data;
        if (changes.length === 0) return ctx.note('No changes recorded in this workspace (kept 90 days).');
        ctx.print(
          renderTable(
            [
              { header: 'CHANGE', keep: true },
              { header: 'WHEN' },
              { header: 'WHO' },
              { header: 'WHAT' },
              { header: 'ROWS' },
            ],
            changes.map((c) => [
              c.changeId,
              c.at,
              [c.by.email, c.by.label].filter(Boolean).join(' / '),
              changeWhat(c),
              changeRows(c),
            ]),
            { maxWidth: ctx.tableWidth, colours: ctx.out },
          ),
        );
      }),
    );
}
