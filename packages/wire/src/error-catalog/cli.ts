/** The exit codes of `cli.md`. */
export const CLI_EXIT_CODES = {
  ok: 0,
  failure: 1,
  usage: 2,
  declined: 3,
  notSignedIn: 4,
  sqlRejected: 5,
  /** The server's row cap cut the result and stdout is not a terminal (`--all` fetches the rest). */
  truncated: 6,
} as const;
export type CliExitName = keyof typeof CLI_EXIT_CODES;

/** A code the CLI raises itself: its exit code, and its texts where they do not depend on the case. */
export interface CliErrorEntry {
  exit: CliExitName;
  message?: string;
  /** The next step, in the CLI's words (commands and options). */
  hint?: string;
}

/**
 * The codes the CLI raises itself (before or instead of an API call), each with its exit code. A code that is also
 * an API code (`not_found`, `missing_workspace`, `workspace_not_found`, `invalid_code`) is the CLI's own situation
 * of it, found locally; an API error keeps the exit code the CLI maps from its status.
 */
export const CLI_ERRORS = {
  usage_error: { exit: 'usage' },
  already_signed_in: {
    exit: 'usage',
    hint: 'Add --force to sign in again and revoke that key, or use another profile (--profile <name>).',
  },
  profile_exists: { exit: 'usage' },
  not_signed_in: {
    exit: 'notSignedIn',
    message: 'You are not signed in.',
    hint: 'Run `expense login`, or set EXPENSE_API_KEY.',
  },
  approval_required: {
    exit: 'declined',
    message: 'This changes data and needs your approval; nothing was sent.',
    hint: 'Run it again with --yes to approve, or from a terminal to be asked.',
  },
  approval_declined: { exit: 'declined', message: 'Not approved; nothing was changed.' },
  cancelled: { exit: 'declined', message: 'Cancelled.' },
  credential_store_unavailable: {
    exit: 'failure',
    hint: 'Sign in again with `expense login` (add --insecure-storage to keep the key in a 0600 file).',
  },
  network_error: { exit: 'failure', hint: 'Is the server running? Check --api-url or EXPENSE_API_URL.' },
  unexpected_response: {
    exit: 'failure',
    hint: 'Check that --api-url (or EXPENSE_API_URL) points at an expense API, e.g. http://127.0.0.1:8787/v1.',
  },
  file_not_readable: { exit: 'failure' },
  invalid_csv: { exit: 'failure' },
  import_failed: { exit: 'failure' },
  invalid_code: { exit: 'failure' },
  ambiguous_workspace: { exit: 'failure' },
  missing_workspace: {
    exit: 'failure',
    message: 'No workspace is selected.',
    hint: 'Pass --workspace <id or name>, or select one with `expense use <workspace>`.',
  },
  workspace_not_found: { exit: 'failure' },
  relation_not_found: { exit: 'failure' },
  member_not_found: { exit: 'failure', hint: 'See the members with `expense members`.' },
  invitation_not_found: { exit: 'failure', hint: 'See your invitations with `expense invitations`.' },
  not_found: { exit: 'failure', hint: '`expense history` lists the changes (kept 90 days).' },
} as const satisfies Record<string, CliErrorEntry>;
export type CliErrorCode = keyof typeof CLI_ERRORS;

/** The exit code of a code the CLI raises itself. */
export function cliExitCode(code: CliErrorCode): (typeof CLI_EXIT_CODES)[CliExitName] {
  return CLI_EXIT_CODES[CLI_ERRORS[code].exit];
}
