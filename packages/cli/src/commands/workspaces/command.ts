import type { WorkspaceListItem } from '@expense/wire';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { renderTable } from '../../output/table.js';
import type { Action } from '../action.js';

async function listWorkspaces(ctx: Context) {
  const api = await ctx.api();
  return { api, result: await api.workspaces() };
}

/** A workspace by id or exact name among the caller's (one lookup, clear errors for none and for several). */
export async function resolveWorkspace(ctx: Context, ref: string): Promise<WorkspaceListItem> {
  const { result } = await listWorkspaces(ctx);
  return findWorkspace(result.data.workspaces, ref);
}

/** Hex digits a workspace id prefix needs at least (as git asks for 4). */
const MIN_ID_PREFIX = 4;

/** The one workspace whose id starts with `ref` (4 or more characters, any case), when no name matched. */
function byIdPrefix(all: WorkspaceListItem[], ref: string): WorkspaceListItem | undefined {
  const prefix = ref.trim().toLowerCase();
  if (!/^[0-9a-f-]+$/.test(prefix) || prefix.replace(/-/g, '').length < MIN_ID_PREFIX) return undefined;
  const found = all.filter((w) => w.workspaceId.toLowerCase().startsWith(prefix));
  if (found.length > 1) {
    throw new CliError(
      'ambiguous_workspace',
      `${found.length} of your workspaces have an id starting with ${ref}.`,
      ExitCode.failure,
      { hint: `Give more of the id: ${found.map((w) => `${w.name} (${w.workspaceId})`).join(', ')}.` },
    );
  }
  return found[0];
}

/** A workspace by its id, its name (exact, else ignoring case) or a unique prefix of its id, in that order. */
export function findWorkspace(all: WorkspaceListItem[], ref: string): WorkspaceListItem {
  const byId = all.find((w) => w.workspaceId === ref);
  const exact = all.filter((w) => w.name === ref);
  // "household" finds "Household" when no workspace has the exact name and only one matches ignoring case.
  const byName = exact.length
    ? exact
    : all.filter((w) => w.name.localeCompare(ref, undefined, { sensitivity: 'accent' }) === 0);
  if (!byId && byName.length > 1) {
    throw new CliError(
      'ambiguous_workspace',
      `${byName.length} workspaces are named "${ref}".`,
      ExitCode.failure,
      {
        hint: `Use the id: ${byName.map((w) => w.workspaceId).join(', ')}.`,
      },
    );
  }
  const target = byId ?? byName[0] ?? byIdPrefix(all, ref);
  if (!target) {
    throw new CliError(
      'workspace_not_found',
      `No workspace with the id or name "${ref}".`,
      ExitCode.failure,
      {
        hint: all.length
          ? `Yours: ${all.map((w) => `${w.name} (${w.workspaceId})`).join(', ')}.`
          : 'Create one with `expense workspaces create <name>`.',
      },
    );
  }
  return target;
}

/** The workspace a command would use: --workspace / profile, else the server's saved one. */
function selectedId(list: WorkspaceListItem[], local: string | undefined): string | undefined {
  return local ?? list.find((w) => w.selected)?.workspaceId;
}

/** Registers the workspace commands; returns `expense workspaces`, which other commands join (delete). */
export function registerWorkspaces(program: Command, action: Action): Command {
  const list = action(async (ctx) => {
    const { result } = await listWorkspaces(ctx);
    if (ctx.json) return ctx.printJson(result.raw);
    const workspaces = result.data.workspaces;
    if (workspaces.length === 0) {
      ctx.note('No workspaces yet. Create one with `expense workspaces create <name>`.');
      return;
    }
    const current = selectedId(workspaces, await ctx.workspaceId());
    ctx.print(
      renderTable(
        [{ header: '' }, { header: 'ID' }, { header: 'NAME' }, { header: 'ROLE' }],
        workspaces.map((w) => [w.workspaceId === current ? '*' : '', w.workspaceId, w.name, w.role]),
        { maxWidth: ctx.tableWidth, colours: ctx.out },
      ),
    );
  });

  const workspaces = program
    .command('workspaces')
    .description('List your workspaces (* marks the selected one), or create one')
    .action(list);
  workspaces.command('list').alias('ls').description('List your workspaces').action(list);
  workspaces
    .command('create')
    .argument('<name>', 'the new workspace name (1 to 100 characters)')
    .description('Create a workspace; you become its owner')
    .action(
      action(async (ctx, _options, [name]) => {
        const created = await (await ctx.api()).createWorkspace(name!);
        if (ctx.json) return ctx.printJson(created.raw);
        const w = created.data.workspace;
        ctx.note(`${ctx.err.green('✓')} Created workspace ${ctx.err.bold(w.name)} (${w.workspaceId}).`);
        ctx.note(`Select it with: expense use ${/^[\w.-]+$/.test(w.name) ? w.name : w.workspaceId}`);
      }),
    );

  program
    .command('use')
    .argument('<workspace>', 'workspace name, id, or the first 4 or more characters of its id')
    .description('Select the workspace SQL commands run in, and remember it in the profile')
    .action(
      action(async (ctx, _options, [ref]) => {
        const { api, result } = await listWorkspaces(ctx);
        const target = findWorkspace(result.data.workspaces, ref!);
        const selected = await api.selectWorkspace(target.workspaceId);
        await ctx.updateProfile({ workspaceId: selected.data.workspace.workspaceId });
        if (ctx.json) return ctx.printJson(selected.raw);
        const w = selected.data.workspace;
        ctx.note(`${ctx.err.green('✓')} Selected workspace ${ctx.err.bold(w.name)} (${w.workspaceId}).`);
      }),
    );
  return workspaces;
}
