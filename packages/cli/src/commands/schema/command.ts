import { rulesFor } from '@expense/wire';
import type { Command } from 'commander';
import { CliError, ExitCode } from '../../errors.js';
import { renderTable } from '../../output/table.js';
import type { Action } from '../action.js';

/**
 * The rules GET /schema answered, as `expense schema` lists them: in the catalogue's CLI words (the commands
 * rather than the HTTP routes; the approval the CLI asks for itself rather than an agent's "ask the user").
 */
export function rulesText(rules: readonly string[]): string | undefined {
  const words = rulesFor(rules, 'cli');
  return words.length ? `Rules:\n${words.map((r) => `  - ${r}`).join('\n')}` : undefined;
}

/** A relation's hints as GET /schema answered them, those naming a route in the catalogue's CLI words. */
export function hintsText(hints: readonly string[]): string | undefined {
  const words = rulesFor(hints, 'cli');
  return words.length ? `\nHints:\n${words.map((h) => `  - ${h}`).join('\n')}` : undefined;
}

export function registerSchema(program: Command, action: Action): void {
  program
    .command('schema')
    .argument('[relation]', 'show the columns and hints of one relation')
    .description('Show the relations you can query, their columns, types and hints')
    .action(
      action(async (ctx, _options, [name]) => {
        const result = await (await ctx.api()).schema();
        const { relations, rules, functions } = result.data;
        const table = { maxWidth: ctx.tableWidth, colours: ctx.out };
        if (name === undefined) {
          if (ctx.json) return ctx.printJson(result.raw);
          ctx.print(
            renderTable(
              [
                { header: 'RELATION' },
                { header: 'KIND' },
                { header: 'SCOPE' },
                { header: 'OPERATIONS' },
                { header: 'COLUMNS', align: 'right' },
              ],
              relations.map((r) => [
                r.name,
                r.kind,
                r.scope,
                r.operations.join(', '),
                String(r.columns.length),
              ]),
              table,
            ),
          );
          ctx.print(`\nFunctions: ${functions.join(', ')}`);
          const ruled = rulesText(rules);
          if (ruled !== undefined) ctx.print(ruled);
          ctx.note('\nRun `expense schema <relation>` for its columns and hints.');
          return;
        }
        const relation = relations.find((r) => r.name === name);
        if (!relation) {
          throw new CliError('relation_not_found', `There is no relation "${name}".`, ExitCode.failure, {
            hint: `Relations: ${relations.map((r) => r.name).join(', ')}.`,
          });
        }
        if (ctx.json) {
          const raw = (result.raw as { relations: { name: string }[] }).relations.find(
            (r) => r.name === name,
          );
          return ctx.printJson(raw);
        }
        ctx.print(
          `${ctx.out.bold(relation.name)} (${relation.kind}, ${relation.scope}; ${relation.operations.join(', ')})\n`,
        );
        ctx.print(
          renderTable(
            [{ header: 'COLUMN' }, { header: 'TYPE' }, { header: 'NULLABLE' }, { header: 'DEFAULT' }],
            relation.columns.map((c) => [c.name, c.type, c.nullable ? 'yes' : 'no', c.default ?? '']),
            table,
          ),
        );
        const hinted = hintsText(relation.hints);
        if (hinted !== undefined) ctx.print(hinted);
      }),
    );
}
