import type { Command } from 'commander';
import { renderTable } from '../output/table.js';
import type { Action } from './action.js';

/** "INSERT 3 ledger_entries, UPDATE 1 workspace_settings" */
export function changeSummary(statements: { table: string; command: string; rowCount: number }[]): string {
  return statements.map((s) => `${s.command} ${s.rowCount} ${s.table}`).join(', ') || 'no rows';
}

export function registerHistory(program: Command, action: Action): void {
  program
    .command('history')
    .option('-n, --limit <n>', 'how many changes (1 to 100)', '20')
    .description(
      'What was changed in the workspace, newest first (undo one with `expense revert <changeId>`)',
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
              { header: 'CHANGE' },
              { header: 'WHEN' },
              { header: 'WHO' },
              { header: 'WHAT' },
              { header: 'ROWS' },
            ],
            changes.map((c) => [
              c.changeId,
              c.at,
              [c.by.email, c.by.label].filter(Boolean).join(' / '),
              `${c.endpoint}${c.revertedBy ? ' (reverted)' : ''}: ${c.sql.replace(/\s+/g, ' ').slice(0, 60)}`,
              changeSummary(c.statements),
            ]),
            { maxWidth: ctx.tableWidth, colours: ctx.out },
          ),
        );
      }),
    );
}
