import type { Command } from 'commander';
import { type Action, lazy } from '../action.js';

export function registerLogin(program: Command, action: Action): void {
  program
    .command('login')
    .description('Sign in with a code sent by e-mail and keep the key in the system keychain')
    .option('--email <address>', 'the address to send the code to (required when stdin is not a terminal)')
    .option('--label <label>', 'a name for the key, shown in whoami and key lists', undefined)
    .option('--insecure-storage', 'keep the key in a 0600 file instead of the system keychain')
    .option('--force', 'sign in again over a working key without asking (the replaced key is revoked)')
    .addHelpText(
      'after',
      '\nWithout a terminal, the code is read as one line from stdin:\n  expense login --email you@example.com < code.txt',
    )
    .action(action(lazy(async () => (await import('./run.js')).login)));
}
