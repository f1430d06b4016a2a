import type { Command } from 'commander';
import type { Action } from '../action.js';

/** The commands' bodies, loaded when one of them runs. */
const run = () => import('./run.js');

export function registerPortability(program: Command, workspaces: Command, action: Action): void {
  program
    .command('export')
    .description("Write a workspace's data and history (JSON, or a zip of CSVs) to stdout or a file")
    .option(
      '--format <format>',
      'json (default; what `expense restore` reads) or csv (a zip of CSVs with a manifest)',
      'json',
    )
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(
      action<{ format: string; output?: string }>(async (ctx, options) => {
        await (await run()).exportWorkspace(ctx, options);
      }),
    );

  program
    .command('restore')
    .argument('<file>', 'an export written by `expense export` (JSON)')
    .description('Load an export into an empty workspace (--workspace, else the selected one), as one change')
    .option('--replace', "delete the workspace's data first, in the same change (it can be reverted)")
    .action(
      action<{ replace?: boolean }>(async (ctx, options, [file]) => {
        await (await run()).restoreWorkspace(ctx, options, file!);
      }),
    );

  workspaces
    .command('delete')
    .argument('<workspace>', 'workspace id or exact name')
    .description('Delete a workspace with all its data and history, for good, after typing its name (owners)')
    .option('--confirm <name>', "the workspace's name, for use without a terminal")
    .action(
      action<{ confirm?: string }>(async (ctx, options, [ref]) => {
        await (await run()).deleteWorkspace(ctx, options, ref!);
      }),
    );

  program
    .command('account')
    .description('Your account')
    .command('delete')
    .description(
      'Delete your account for good: keys, sessions, invitations, OAuth grants, and the workspaces you alone own',
    )
    .option('--confirm <email>', "the account's e-mail address, for use without a terminal")
    .action(
      action<{ confirm?: string }>(async (ctx, options) => {
        await (await run()).deleteAccount(ctx, options);
      }),
    );
}
