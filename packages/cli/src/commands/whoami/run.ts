import type { Context, KeySource } from '../../context.js';
import { keychainDescription } from '../../credentials/keychain-store.js';
import { openStore } from '../../credentials/select.js';

async function storageLine(ctx: Context, source: KeySource): Promise<string> {
  if (source === 'env') return 'EXPENSE_API_KEY environment variable (nothing stored)';
  if (source === 'keychain') return `${keychainDescription()}, account ${await ctx.account()}`;
  return `${openStore('file', ctx.io.env).description} — not the system keychain`;
}

/** `expense whoami`: who, which key, where it is stored. */
export async function whoami(ctx: Context): Promise<void> {
  const { source } = await ctx.key();
  const api = await ctx.api();
  const me = await api.me();
  const workspaceId = (await ctx.workspaceId()) ?? me.data.selectedWorkspaceId ?? undefined;
  let workspaceName: string | undefined;
  if (workspaceId) {
    const list = await api.workspaces();
    workspaceName = list.data.workspaces.find((w) => w.workspaceId === workspaceId)?.name;
  }
  const storage = await storageLine(ctx, source);
  if (ctx.json) {
    ctx.printJson({
      ...(me.raw as object),
      cli: {
        profile: ctx.profileName,
        apiUrl: await ctx.apiUrl(),
        workspaceId: workspaceId ?? null,
        credentialStore: { kind: source, location: storage },
      },
    });
    return;
  }
  const { user, connection } = me.data;
  const rows: [string, string][] = [
    ['User', `${user.email} (${user.userId})`],
    ['Key', `${connection.label} (${connection.connectionId}, created ${connection.createdAt})`],
    ['API URL', await ctx.apiUrl()],
    ['Profile', ctx.profileName],
    [
      'Workspace',
      workspaceId
        ? `${workspaceName ?? '(unknown)'} (${workspaceId})`
        : 'none selected — run `expense use <workspace>`',
    ],
    ['Key stored in', storage],
  ];
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  ctx.print(rows.map(([k, v]) => `${ctx.out.bold(`${k}:`.padEnd(width))}${v}`).join('\n'));
}
