import { HTTP_ERRORS } from '@expense/wire/error-catalog';
import type { Command } from 'commander';
import type { Member } from '../../api/index.js';
import type { Context } from '../../context.js';
import { CliError, cliError, ExitCode } from '../../errors.js';
import { renderTable } from '../../output/table.js';
import type { Action } from '../action.js';
import { findWorkspace } from '../workspaces/command.js';

interface RemoveOptions {
  yes?: boolean;
}

/** The workspace members commands act on: --workspace (id or name), else the profile's, else the selected one. */
async function memberWorkspace(ctx: Context) {
  const api = await ctx.api();
  const { workspaces } = (await api.workspaces()).data;
  const ref = await ctx.workspaceId();
  const workspace = ref ? findWorkspace(workspaces, ref) : workspaces.find((w) => w.selected);
  if (!workspace) {
    const { message, cliHint } = HTTP_ERRORS.missing_workspace;
    throw new CliError('missing_workspace', message, ExitCode.failure, { hint: cliHint });
  }
  return { api, workspace };
}

function findMember(members: Member[], ref: string): Member {
  const lower = ref.toLowerCase();
  const member = members.find((m) => m.userId === ref || m.email.toLowerCase() === lower);
  if (!member) {
    throw cliError('member_not_found', { message: `No member or invitation for "${ref}".` });
  }
  return member;
}

export function registerMembers(program: Command, action: Action): void {
  const list = action(async (ctx) => {
    const { api, workspace } = await memberWorkspace(ctx);
    const result = await api.members(workspace.workspaceId);
    if (ctx.json) return ctx.printJson(result.raw);
    ctx.note(`Members of ${ctx.err.bold(workspace.name)} (${workspace.workspaceId}):`);
    ctx.print(
      renderTable(
        [
          { header: 'EMAIL' },
          { header: 'ROLE' },
          { header: 'STATUS' },
          { header: 'ADDED' },
          { header: 'USER ID' },
        ],
        result.data.members.map((m) => [m.email, m.role, m.status ?? 'active', m.addedAt, m.userId]),
        { maxWidth: ctx.tableWidth, colours: ctx.out },
      ),
    );
  });

  const members = program
    .command('members')
    .description('The members of a workspace (active and invited); owners invite and remove')
    .action(list);
  members.command('list').alias('ls').description('List the members').action(list);

  members
    .command('invite')
    .argument('<email>', 'the address to invite')
    .description('Invite someone; they become a member only when they accept')
    .action(
      action(async (ctx, _options, [email]) => {
        const { api, workspace } = await memberWorkspace(ctx);
        const result = await api.inviteMember(workspace.workspaceId, email!);
        if (ctx.json) return ctx.printJson(result.raw);
        const m = result.data.member;
        if ((m.status ?? 'invited') === 'invited') {
          ctx.note(`${ctx.err.green('✓')} Invited ${m.email} to ${ctx.err.bold(workspace.name)}.`);
          ctx.note(
            `Nothing is shared until they accept: \`expense invitations accept ${workspace.workspaceId}\` after signing in.`,
          );
        } else ctx.note(`${m.email} is already a member of ${workspace.name}.`);
      }),
    );

  members
    .command('remove')
    .argument('<member>', 'e-mail address or userId')
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .description("Remove a member (revokes all of that member's keys) or withdraw an invitation")
    .action(
      action(async (ctx, options: RemoveOptions, [ref]) => {
        const { api, workspace } = await memberWorkspace(ctx);
        const member = findMember((await api.members(workspace.workspaceId)).data.members, ref!);
        const invited = member.status === 'invited';
        if (invited) {
          ctx.note(`This withdraws the invitation of ${member.email} to ${workspace.name}.`);
        } else {
          ctx.note(
            `${ctx.err.yellow('Warning:')} removing ${member.email} from ${workspace.name} revokes ALL of their keys at once, on every device and agent (they must sign in again).`,
          );
        }
        const { approve } = await import('../shared.js');
        await approve(ctx, invited ? 'Withdraw the invitation?' : `Remove ${member.email}?`, options.yes);
        await api.removeMember(workspace.workspaceId, member.userId);
        if (ctx.json) return ctx.printJson({ removed: member, workspaceId: workspace.workspaceId });
        ctx.note(
          `${ctx.err.green('✓')} ${invited ? 'Withdrew the invitation of' : 'Removed'} ${member.email}${invited ? '' : '; their keys are revoked'}.`,
        );
      }),
    );
}
