import type { Command } from 'commander';
import { type Action, lazy } from '../action.js';

export function registerMcp(program: Command, action: Action): void {
  program
    .command('mcp')
    .option('--read-only', 'hide and refuse the writing tools')
    .description('Serve the MCP tools over stdio with the stored key (for Claude, Cursor, VS Code ...)')
    .addHelpText(
      'after',
      `
Nothing but the protocol is written to stdout; messages go to stderr. --workspace <id or name> pins the
server to one workspace. See docs/mcp.md for client configuration.`,
    )
    .action(action(lazy(async () => (await import('./run.js')).mcp)));
}
