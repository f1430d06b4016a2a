import type { Command } from 'commander';
import { type Action, lazy } from '../action.js';

export function registerLogout(program: Command, action: Action): void {
  program
    .command('logout')
    .description('Revoke the key on the server and remove it from this machine')
    .action(action(lazy(async () => (await import('./run.js')).logout)));
}
