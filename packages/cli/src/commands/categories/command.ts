import type { Command } from 'commander';
import { type Action, lazy } from '../action.js';

export function registerCategories(program: Command, action: Action): void {
  const categories = program
    .command('categories')
    .description("The workspace's categories (matched ignoring case: the spelling already used wins)");
  categories
    .command('rename')
    .argument('<from>', 'the category to rename (any case)')
    .argument('<to>', 'its new name; when the workspace has it already (any case), the two are merged')
    .option('-y, --yes', 'approve without asking (needed without a terminal)')
    .description('Rename a category on every entry and budget line, or merge it into another, as one change')
    .action(action(lazy(async () => (await import('./run.js')).renameCategory)));
}
