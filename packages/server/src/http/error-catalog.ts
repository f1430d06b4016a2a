import { type Action, type ErrorCode, GUARD_ERROR_CODES } from '@expense/wire';
import type { ActionBuilder } from './actions.js';

interface CatalogEntry {
  hint: string;
  retryable?: boolean;
  actions?: (a: ActionBuilder) => Action[];
}

const signIn = (a: ActionBuilder) => [a.sendCode(), a.discover()];

/** The default hint, retryability and next actions of each code; a thrown ApiError may override them. */
const catalog: Partial<Record<ErrorCode, CatalogEntry>> = {
  invalid_request: {
    hint: 'Fix the request as the message (and details, when present) describes, then send it again.',
  },
  invalid_email: { hint: 'Ask the user for a valid e-mail address.', actions: (a) => [a.sendCode()] },
  invalid_label: {
    hint: 'Send a label of 1 to 100 characters naming this key.',
    actions: (a) => [a.verifyCode()],
  },
  invalid_code: {
    hint: 'Ask the user to check the 8-digit code in the e-mail and send it again.',
    actions: (a) => [a.verifyCode()],
  },
  expired_code: {
    hint: 'The code is older than 10 minutes: request a new one.',
    actions: (a) => [a.sendCode()],
  },
  invalid_otp_session: {
    hint: 'This sign-in attempt is over (used, replaced, or too many wrong codes): request a new code.',
    actions: (a) => [a.sendCode()],
  },
  invalid_workspace_name: {
    hint: 'Use a name of 1 to 100 characters that is not blank.',
    actions: (a) => [a.createWorkspace()],
  },
  missing_workspace: {
    hint: 'Select a workspace, or send the X-Workspace-Id header.',
    actions: (a) => [a.listWorkspaces(), a.selectWorkspace()],
  },
  missing_api_key: {
    hint: 'Send the header `Authorization: ApiKey <key>`; sign in to get a key.',
    actions: signIn,
  },
  invalid_api_key: {
    hint: 'The key is unknown or revoked: sign in again to get a new key.',
    actions: signIn,
  },
  forbidden: { hint: 'Only an owner of the workspace can do this.', actions: (a) => [a.listWorkspaces()] },
  not_found: { hint: 'Start from discovery and follow its actions.', actions: (a) => [a.discover()] },
  workspace_not_found: {
    hint: 'Use a workspaceId from the workspace list.',
    actions: (a) => [a.listWorkspaces()],
  },
  method_not_allowed: {
    hint: 'Use a method this route allows (see the Allow header).',
    actions: (a) => [a.discover()],
  },
  last_owner: { hint: 'Add another owner first, or keep this owner.', actions: (a) => [a.listMembers()] },
  payload_too_large: { hint: 'Send a body of at most 1 MiB, e.g. in smaller batches.' },
  unsupported_media_type: { hint: 'Send the body as JSON with `Content-Type: application/json`.' },
  rate_limited: { hint: 'Wait for the seconds in Retry-After, then retry.', retryable: true },
  too_many_concurrent_requests: {
    hint: 'Wait until one of your SQL requests in flight has answered (Retry-After: 1), then send this one again; send SQL requests one after another rather than all at once.',
    retryable: true,
  },
  internal_error: { hint: 'Retry later; if it persists, report the X-Request-Id.', retryable: true },
  database_unavailable: { hint: 'The database is not answering: retry in a few seconds.', retryable: true },
  sql_execution_failed: {
    hint: 'Fix the statement (see details.position and GET /schema) and send it again; nothing was changed.',
    actions: (a) => [a.schema()],
  },
  mutation_row_limit_exceeded: {
    hint: 'Change fewer rows per request (a narrower WHERE, or several requests); nothing was changed.',
  },
  result_too_large: {
    hint: 'Select fewer or shorter columns, or aggregate; nothing was changed.',
  },
  idempotency_key_reused: { hint: 'Use a new Idempotency-Key for every different request.' },
  change_conflict: {
    hint: 'Rows of this change were changed again since (details.rows): read them with GET /v1/changes, then revert the later changes first or fix the rows with SQL; nothing was changed.',
  },
  mutation_outcome_unknown: {
    hint: 'Retry with the same Idempotency-Key: the kept result is replayed if the change was applied, and it runs once if not.',
  },
  ...Object.fromEntries(
    GUARD_ERROR_CODES.map((code) => [
      code,
      {
        hint: 'Rewrite the SQL within the dialect (GET /schema lists relations, functions and rules); nothing was run.',
        actions: (a: ActionBuilder) => [a.schema()],
      },
    ]),
  ),
  deadline_exceeded: { hint: 'Make the request cheaper (narrower filters, fewer rows).', retryable: true },
};

export function catalogEntry(code: ErrorCode): CatalogEntry {
  return catalog[code] ?? { hint: 'See the error code in the API documentation.' };
}
