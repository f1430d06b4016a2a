import type { Command } from 'commander';
import { CliError, ExitCode } from '../../errors.js';
import { renderTable } from '../../output/table.js';
import type { Action } from '../action.js';

/** A rule of GET /schema written for an agent: about its user, or in the HTTP routes' words. */
const AGENT_RULE = /\bthe user\b|\buser's\b|\b(?:GET|POST) \//i;

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
          // The rules of the SQL, not those addressed to an agent about its user and the HTTP routes (issue 41):
          // the CLI asks for the approval itself, and `expense history` / `expense revert` are the history.
          const forPeople = rules.filter((r) => !AGENT_RULE.test(r));
          if (forPeople.length) ctx.print(`Rules:\n${forPeople.map((r) => `  - ${r}`).join('\n')}`);
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
        if (relation.hints.length) ctx.print(`\nHints:\n${relation.hints.map((h) => `  - ${h}`).join('\n')}`);
      }),
    );
}
