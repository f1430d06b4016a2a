import type { Command } from 'commander';
import type { Invitation } from '../../api/index.js';
import type { Context } from '../../context.js';
import { CliError, cliError, ExitCode } from '../../errors.js';
import { renderTable } from '../../output/table.js';
import type { Action } from '../action.js';

async function findInvitation(ctx: Context, ref: string): Promise<Invitation> {
  const api = await ctx.api();
  const all = (await api.invitations()).data.invitations;
  const byId = all.find((i) => i.workspaceId === ref);
  const byName = all.filter((i) => i.workspaceName === ref);
  if (!byId && byName.length > 1) {
    throw new CliError(
      'ambiguous_workspace',
      `${byName.length} invitations are for workspaces named "${ref}".`,
      ExitCode.failure,
      {
        hint: `Use the id: ${byName.map((i) => i.workspaceId).join(', ')}.`,
      },
    );
  }
  const found = byId ?? byName[0];
  if (!found) {
    throw cliError('invitation_not_found', { message: `No pending invitation for "${ref}".` });
  }
  return found;
}

export function registerInvitations(program: Command, action: Action): void {
  const list = action(async (ctx) => {
    const result = await (await ctx.api()).invitations();
    if (ctx.json) return ctx.printJson(result.raw);
    const invitations = result.data.invitations;
    if (invitations.length === 0) return ctx.note('No pending invitations.');
    ctx.print(
      renderTable(
        [{ header: 'WORKSPACE' }, { header: 'NAME' }, { header: 'INVITED BY' }, { header: 'INVITED AT' }],
        invitations.map((i) => [i.workspaceId, i.workspaceName, i.invitedBy.email, i.invitedAt]),
        { maxWidth: ctx.tableWidth, colours: ctx.out },
      ),
    );
    ctx.note('Accept with `expense invitations accept <workspace>`, or decline.');
  });

  const invitations = program
    .command('invitations')
    .description('Your pending invitations to workspaces; accept or decline them')
    .action(list);
  invitations.command('list').alias('ls').description('List your pending invitations').action(list);
  invitations
    .command('accept')
    .argument('<workspace>', 'workspace id or exact name')
    .description('Join the workspace: its members can then see what you write there')
    .action(
      action(async (ctx, _options, [ref]) => {
        const invitation = await findInvitation(ctx, ref!);
        const result = await (await ctx.api()).acceptInvitation(invitation.workspaceId);
        if (ctx.json) return ctx.printJson(result.raw);
        const w = result.data.workspace;
        ctx.note(`${ctx.err.green('✓')} Joined ${ctx.err.bold(w.name)} (${w.workspaceId}).`);
        ctx.note(`Select it with: expense use ${w.workspaceId}`);
      }),
    );
  invitations
    .command('decline')
    .argument('<workspace>', 'workspace id or exact name')
    .description('Decline the invitation')
    .action(
      action(async (ctx, _options, [ref]) => {
        const invitation = await findInvitation(ctx, ref!);
        await (await ctx.api()).declineInvitation(invitation.workspaceId);
        if (ctx.json) return ctx.printJson({ declined: invitation.workspaceId });
        ctx.note(`${ctx.err.green('✓')} Declined the invitation to ${invitation.workspaceName}.`);
      }),
    );
}
