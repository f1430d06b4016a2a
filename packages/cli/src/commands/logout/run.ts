import type { Context } from '../../context.js';
import { openStore } from '../../credentials/select.js';
import { ApiError } from '../../http/api-error.js';

/** `expense logout`: the key revoked on the server and removed here. */
export async function logout(ctx: Context): Promise<void> {
  const { source } = await ctx.key();
  const api = await ctx.api();
  let revoked: { connectionId: string; label: string } | undefined;
  try {
    const me = await api.me();
    const { connectionId, label } = me.data.connection;
    await api.revokeKey(connectionId);
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
  if (source === 'env') ctx.note('The key came from EXPENSE_API_KEY; unset it, nothing was stored here.');
  else ctx.note(removed ? 'Removed it from this machine.' : 'No stored copy was left on this machine.');
}
