import type { Command } from 'commander';
import { type Action, lazy } from '../action.js';

export function registerRevert(program: Command, action: Action): void {
  program
    .command('revert')
    .argument('<changeId>', 'a change from `expense history`: its id, or any unique prefix of it')
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .description(
      'Undo one change (an import: all its batches) after showing its dry run and asking for approval',
    )
    .action(action(lazy(async () => (await import('./run.js')).revert)));
}
