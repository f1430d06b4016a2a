import { type MeData, MeDataSchema } from '@expense/wire';
import type { Command } from 'commander';
import { openStore } from '../credentials/select.js';
import { ApiError } from '../http/api-error.js';
import type { Action } from './action.js';

export function registerLogout(program: Command, action: Action): void {
  program
    .command('logout')
    .description('Revoke the key on the server and remove it from this machine')
    .action(
      action(async (ctx) => {
        const { apiKey, source } = await ctx.key();
        let revoked: { connectionId: string; label: string } | undefined;
        try {
          const me = await ctx.client.call<MeData>({
            method: 'GET',
            url: await ctx.url('/me'),
            data: MeDataSchema,
            apiKey,
          });
          const { connectionId, label } = me.data.connection;
          await ctx.client.call({
            method: 'DELETE',
            url: await ctx.url(`/keys/${encodeURIComponent(connectionId)}`),
            apiKey,
          });
          revoked = { connectionId, label };
        } catch (error) {
          // A key the server no longer accepts is already as good as revoked: still remove it here.
          if (!(error instanceof ApiError && error.status === 401)) throw error;
        }
        let removed = false;
        if (source !== 'env') {
          removed = await openStore(source, ctx.io.env).delete(await ctx.account());
          await ctx.updateProfile({ credentialStore: undefined });
        }
        if (ctx.json) {
          ctx.printJson({ revoked: revoked ?? null, removedLocally: removed });
          return;
        }
        ctx.note(
          revoked
            ? `${ctx.err.green('✓')} Key "${revoked.label}" revoked on the server.`
            : 'The server no longer accepted this key (already revoked).',
        );
        if (source === 'env')
          ctx.note('The key came from EXPENSE_API_KEY; unset it, nothing was stored here.');
        else ctx.note(removed ? 'Removed it from this machine.' : 'No stored copy was left on this machine.');
      }),
    );
}
