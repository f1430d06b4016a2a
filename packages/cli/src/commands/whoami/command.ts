import type { Command } from 'commander';
import { type Action, lazy } from '../action.js';

export function registerWhoami(program: Command, action: Action): void {
  program
    .command('whoami')
    .description('Show the signed-in user, key, API URL, workspace and where the key is stored')
    .action(action(lazy(async () => (await import('./run.js')).whoami)));
}
