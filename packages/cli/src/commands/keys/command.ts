import type { Command } from 'commander';
import { renderTable } from '../../output/table.js';
import type { Action } from '../action.js';

export function registerKeys(program: Command, action: Action): void {
  const list = action(async (ctx) => {
    const result = await (await ctx.api()).keys();
    if (ctx.json) return ctx.printJson(result.raw);
    const keys = result.data.keys;
    if (keys.length === 0) return ctx.note('No active keys.');
    ctx.print(
      renderTable(
        [
          { header: '' },
          { header: 'ID' },
          { header: 'LABEL' },
          { header: 'KIND' },
          { header: 'CREATED' },
          { header: 'LAST USED' },
        ],
        keys.map((k) => [
          k.current ? '*' : '',
          k.connectionId,
          k.label,
          (k as { kind?: string }).kind ?? 'apikey',
          k.createdAt,
          k.lastUsedAt ?? 'never',
        ]),
        { maxWidth: ctx.tableWidth, colours: ctx.out },
      ),
    );
    ctx.note(ctx.err.dim('* the key this CLI uses'));
  });

  const keys = program
    .command('keys')
    .description('Your keys and OAuth connections (* marks the one in use), or revoke one')
    .action(list);
  keys.command('list').alias('ls').description('List your keys').action(list);
  keys
    .command('revoke')
    .argument('<connectionId>', 'the key to revoke (from `expense keys`)')
    .description('Revoke one of your keys at once, everywhere')
    .action(
      action(async (ctx, _options, [connectionId]) => {
        const api = await ctx.api();
        const current = (await api.keys()).data.keys.find((k) => k.connectionId === connectionId)?.current;
        await api.revokeKey(connectionId!);
        if (ctx.json) return ctx.printJson({ revoked: connectionId, current: Boolean(current) });
        ctx.note(`${ctx.err.green('✓')} Revoked key ${connectionId}.`);
        if (current) ctx.note('That was the key this CLI uses: run `expense login` to sign in again.');
      }),
    );
}
