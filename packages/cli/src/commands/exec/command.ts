import type { Command } from 'commander';
import { type Action, lazy } from '../action.js';

export function registerExec(program: Command, action: Action): void {
  program
    .command('exec')
    .argument('[sql]', 'one INSERT, UPDATE or DELETE; read from -f or stdin when omitted')
    .option('-f, --file <file>', 'read the SQL from a file (- for stdin)')
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .option('--dry-run', 'run it, show the effect, and roll back')
    .description('Run one write after showing it and asking for approval')
    .action(action(lazy(async () => (await import('./run.js')).exec)));

  program
    .command('sql')
    .argument('[sql]', 'the script; read from -f or stdin when omitted')
    .option('-f, --file <file>', 'read the script from a file (- for stdin)')
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .option('--dry-run', 'run it, show the effect, and roll back')
    .description('Run a script of statements atomically, asking for approval once when it writes')
    .action(action(lazy(async () => (await import('./run.js')).script)));
}
