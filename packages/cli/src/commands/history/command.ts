import type { Command } from 'commander';
import { renderTable } from '../../output/table.js';
import type { Action } from '../action.js';
import { changeWhat, localMinute } from './words.js';

/** Without a terminal the history still fits a common window (it was 170 columns wide). */
const WIDTH_WITHOUT_TERMINAL = 100;

export function registerHistory(program: Command, action: Action): void {
  program
    .command('history')
    .option('-n, --limit <n>', 'how many changes (1 to 100)', '20')
    .description(
      "What was changed in the workspace, newest first, in the workspace's time zone (undo one with `expense revert <change>`)",
    )
    .action(
      action(async (ctx, options: { limit: string }) => {
        const limit = Number(options.limit);
        const result = await (await ctx.api()).changes({
          ...(Number.isInteger(limit) ? { limit } : {}),
        });
        if (ctx.json) return ctx.printJson(result.raw);
        const { changes, timeZone = 'UTC' } = result.data;
        if (changes.length === 0) return ctx.note('No changes recorded in this workspace (kept 90 days).');
        ctx.print(
          renderTable(
            [
              { header: 'CHANGE', keep: true },
              { header: 'WHEN', keep: true },
              { header: 'WHO' },
              { header: 'WHAT' },
            ],
            changes.map((c) => [
              c.shortId,
              localMinute(c.at, timeZone),
              c.by.email ?? c.by.label ?? '',
              changeWhat(c, timeZone),
            ]),
            { maxWidth: ctx.tableWidth ?? WIDTH_WITHOUT_TERMINAL, colours: ctx.out },
          ),
        );
        ctx.note(`Times in ${timeZone}. Undo a change with \`expense revert <change>\`.`);
      }),
    );
}
