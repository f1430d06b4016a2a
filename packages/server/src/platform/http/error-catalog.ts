import { type Action, type ErrorActionName, type ErrorCode, resolveError } from '@expense/wire';
import type { ActionBuilder } from './actions.js';

/**
 * The server's side of the one error catalogue. The entries (status, message, hint, retryable, actions by name)
 * live in `@expense/wire` (`error-catalog.ts`), shared with the CLI and the MCP tools; this file turns an
 * entry's action names into actions with this server's absolute URLs.
 */
const ACTIONS: Record<ErrorActionName, (a: ActionBuilder) => Action> = {
  discover: (a) => a.discover(),
  send_code: (a) => a.sendCode(),
  verify_code: (a) => a.verifyCode(),
  create_workspace: (a) => a.createWorkspace(),
  list_workspaces: (a) => a.listWorkspaces(),
  select_workspace: (a) => a.selectWorkspace(),
  get_schema: (a) => a.schema(),
  list_members: (a) => a.listMembers(),
  list_keys: (a) => a.listKeys(),
};

export interface ServerCatalogEntry {
  hint: string;
  retryable: boolean;
  actions: (a: ActionBuilder) => Action[];
}

/** A code's hint, retryability and next actions (in one of its variants, when given). */
export function catalogEntry(code: ErrorCode, variant?: string): ServerCatalogEntry {
  const entry = resolveError(code, variant);
  return {
    hint: entry.hint,
    retryable: entry.retryable,
    actions: (a) => entry.actions.map((name) => ACTIONS[name](a)),
  };
}
