import { GUARD_ERROR_CODES, type GuardErrorCode } from '@expense/sql-guard/codes';
import { GUIDE_TOPICS } from './guide/index.js';

/**
 * The one error catalogue (docs/architecture.md, "Errors"): every code the API or its MCP tools can answer, with
 * its status, default message, hint, retryability and next actions. Throw sites name a code, a message with the
 * facts of the case, and at most a variant of the catalogue; they write no hint of their own unless it is built
 * from values only the throw site knows (e.g. the names of the relations a refused statement could use).
 */

/** Actions an error may offer, by name; the server builds them with absolute URLs (its ActionBuilder). */
export type ErrorActionName =
  | 'discover'
  | 'send_code'
  | 'verify_code'
  | 'create_workspace'
  | 'list_workspaces'
  | 'select_workspace'
  | 'get_schema'
  | 'list_members'
  | 'list_keys';

/** What a variant of a code (one situation it arises in) may say differently. */
export interface ErrorVariant {
  hint?: string;
  retryable?: boolean;
  actions?: readonly ErrorActionName[];
  mcpNext?: string;
  /** The hint in an MCP tool result, naming tools rather than HTTP routes (where `hint` names routes). */
  mcpHint?: string;
}

export interface ErrorEntry {
  /** The HTTP status; `http-api.md` fixes it. */
  status: number;
  /** The message when the throw site gives none. */
  message: string;
  /** The next step, in words for a person or an agent reading the HTTP answer. */
  hint: string;
  retryable: boolean;
  actions: readonly ErrorActionName[];
  /** The next step in an MCP tool result, where it differs from the generic one (see `mcpNextStep`). */
  mcpNext?: string;
  /** The hint in an MCP tool result, naming tools rather than HTTP routes (where `hint` names routes). */
  mcpHint?: string;
  variants?: Readonly<Record<string, ErrorVariant>>;
}

const signIn = ['send_code', 'discover'] as const;
const IDEMPOTENT_RETRY =
  'Retry with the same Idempotency-Key: the kept result is replayed if the change was applied, and it runs once if not. Without a key, read the data to check before retrying.';

const CONFIRM_AGAIN =
  'Call the same tool (execute, or revert) without confirmToken for a new dry run, show the user its effect, then confirm with its new token.';

/** The codes of `http-api.md`, in the order of its status table. */
export const HTTP_ERRORS = {
  invalid_request: {
    status: 400,
    message: 'The request is not valid.',
    hint: 'Fix the request as the message (and details, when present) describes, then send it again.',
    retryable: false,
    actions: [],
  },
  invalid_email: {
    status: 400,
    message: 'The e-mail address is not valid.',
    hint: 'Ask the user for a valid e-mail address.',
    retryable: false,
    actions: ['send_code'],
  },
  invalid_label: {
    status: 400,
    message: 'The label is not valid.',
    hint: 'Send a label of 1 to 100 characters naming this key.',
    retryable: false,
    actions: ['verify_code'],
  },
  invalid_code: {
    status: 400,
    message: 'The code is not correct.',
    hint: 'Ask the user to check the 8-digit code in the e-mail and send it again.',
    retryable: false,
    actions: ['verify_code'],
    variants: { void: { hint: 'Too many wrong codes: this session is void. Request a new code.' } },
  },
  expired_code: {
    status: 400,
    message: 'The code has expired.',
    hint: 'The code is older than 10 minutes: request a new one.',
    retryable: false,
    actions: ['send_code'],
  },
  invalid_otp_session: {
    status: 400,
    message: 'This sign-in session is not valid any more.',
    hint: 'This sign-in attempt is over (used, replaced, or too many wrong codes): request a new code.',
    retryable: false,
    actions: ['send_code'],
  },
  invalid_workspace_name: {
    status: 400,
    message: 'The workspace name is not valid.',
    hint: 'Use a name of 1 to 100 characters that is not blank.',
    retryable: false,
    actions: ['create_workspace'],
  },
  missing_workspace: {
    status: 400,
    message: 'No workspace is selected.',
    hint: 'Select a workspace, or send the X-Workspace-Id header.',
    mcpHint: 'Pass workspaceId (list_workspaces lists them), or start expense mcp with --workspace.',
    retryable: false,
    actions: ['list_workspaces', 'select_workspace'],
    mcpNext: 'Call list_workspaces and pass one of its workspaceId values.',
  },
  mutation_row_limit_exceeded: {
    status: 400,
    message: 'The statement changes more rows than allowed; nothing was changed.',
    hint: 'Change fewer rows per request (a narrower WHERE, or several requests); nothing was changed.',
    retryable: false,
    actions: [],
    mcpNext: 'Split the change into statements of at most 100 rows.',
  },
  result_too_large: {
    status: 400,
    message: 'The result is larger than allowed; nothing was changed.',
    hint: 'Select fewer or shorter columns, or aggregate; nothing was changed.',
    retryable: false,
    actions: [],
    mcpNext: 'Select fewer or shorter columns, or aggregate.',
  },
  sql_execution_failed: {
    status: 400,
    message: 'The database refused the statement; nothing was changed.',
    hint: 'Fix the statement at details.position (GET /schema lists the relations, columns and rules) and send it again; nothing was changed.',
    mcpHint:
      'Fix the statement at details.position (get_schema lists the relations, columns and rules) and call again; nothing was changed.',
    retryable: false,
    actions: ['get_schema'],
    variants: {
      no_position: {
        hint: 'Fix the statement (GET /schema lists the relations, columns and rules) and send it again; nothing was changed.',
        mcpHint:
          'Fix the statement (get_schema lists the relations, columns and rules) and call again; nothing was changed.',
      },
      revert: {
        hint: 'Nothing was reverted. Read the rows this change touched (GET /v1/changes/{changeId}) and fix them with SQL.',
        mcpHint: 'Nothing was reverted. Read the rows this change touched (query) and fix them with execute.',
      },
    },
  },
  missing_api_key: {
    status: 401,
    message: 'This route needs an ApiKey.',
    hint: 'Send the header `Authorization: ApiKey <key>`; sign in to get a key.',
    retryable: false,
    actions: signIn,
    mcpNext: 'The key is not valid (revoked?): the user signs in again (`expense login`).',
  },
  invalid_api_key: {
    status: 401,
    message: 'The ApiKey is not valid.',
    hint: 'The key is unknown or revoked: sign in again to get a new key.',
    retryable: false,
    actions: signIn,
    mcpNext: 'The key is not valid (revoked?): the user signs in again (`expense login`).',
  },
  forbidden: {
    status: 403,
    message: 'Your role in this workspace does not allow this.',
    hint: 'Only an owner of the workspace can do this.',
    retryable: false,
    actions: ['list_workspaces'],
    variants: {
      read_only_key: {
        hint: 'Use read-only routes (GET routes, POST /sql/query), or ask the user to connect again with read-write access.',
        mcpHint:
          'Use the reading tools (query, report, get_schema), or ask the user to connect again with read-write access.',
      },
      narrow_key: {
        hint: 'Create keys from the console or with a key from `expense login` (full access, all workspaces).',
      },
      account_scope: {
        hint: "This key's consent covers data, not your account: manage keys and invitations in the console or with a key from `expense login` (full access, all workspaces).",
      },
    },
  },
  not_found: {
    status: 404,
    message: 'No such resource.',
    hint: 'Start from discovery and follow its actions.',
    retryable: false,
    actions: ['discover'],
    variants: {
      change: {
        hint: 'List the changes with GET /v1/changes and use one of their changeIds.',
        mcpHint: 'Call history and use one of its changeIds.',
      },
      dropped_change: {
        hint: 'Its rows and SQL are no longer stored, so it cannot be shown or reverted: undo it with SQL of your own, or list the changes kept with GET /v1/changes.',
        mcpHint:
          'Its rows and SQL are no longer stored, so it cannot be reverted: undo it with execute, or call history for the changes kept.',
      },
      invitation: { hint: 'List your pending invitations with GET /invitations.' },
      guide_topic: { hint: `Topics: ${GUIDE_TOPICS.join(', ')}; GET /v1/guide has them all.` },
      key: { actions: ['list_keys'] },
    },
  },
  workspace_not_found: {
    status: 404,
    message: 'No workspace with this id is available to you.',
    hint: 'Use a workspaceId from the workspace list.',
    retryable: false,
    actions: ['list_workspaces'],
    mcpNext: 'Call list_workspaces and pass one of its workspaceId values.',
  },
  method_not_allowed: {
    status: 405,
    message: 'This method is not allowed on this route.',
    hint: 'Use a method this route allows (see the Allow header).',
    retryable: false,
    actions: ['discover'],
  },
  idempotency_key_reused: {
    status: 409,
    message: 'This Idempotency-Key was already used with another request (body, endpoint or workspace).',
    hint: 'Use a new Idempotency-Key for every different request.',
    retryable: false,
    actions: [],
    variants: {
      in_progress: {
        hint: 'Send the same request with the same Idempotency-Key again in a few seconds to get its result.',
        retryable: true,
      },
      taken_over: {
        hint: 'A retry with the same Idempotency-Key took this request over: its answer is the one that counts.',
        retryable: true,
      },
    },
  },
  last_owner: {
    status: 409,
    message: 'The last owner of a workspace cannot be removed.',
    hint: 'Add another owner first, or keep this owner.',
    retryable: false,
    actions: ['list_members'],
  },
  change_conflict: {
    status: 409,
    message: 'Rows of this change were changed since; nothing was reverted.',
    hint: 'Rows of this change were changed again since (details.rows): read them with GET /v1/changes, then revert the later changes first or fix the rows with SQL; nothing was changed.',
    mcpHint:
      'Rows of this change were changed again since (details.rows): call history, then revert the later changes first or fix the rows with execute; nothing was changed.',
    retryable: false,
    actions: [],
    mcpNext:
      'Rows changed since that change (error.details.rows): tell the user; revert the later changes first (history lists them), or fix the rows with execute.',
  },
  limit_reached: {
    status: 409,
    message: 'A per-user limit was reached.',
    hint: 'Free a place first (details.limit and details.current say how many you have), then send the request again.',
    retryable: false,
    actions: [],
    variants: {
      workspaces: {
        hint: 'You own as many workspaces as a user may (details.limit): reuse one of them (GET /v1/workspaces lists them) instead of creating another.',
        actions: ['list_workspaces'],
        mcpNext: 'Tell the user they own the most workspaces allowed; use one of them (list_workspaces).',
      },
    },
  },
  confirmation_invalid: {
    status: 400,
    message: 'The confirmToken is malformed, forged, or from another key.',
    hint: 'Send the SQL with dryRun: true for a new confirmToken (data.confirmToken), then send the SQL with that token.',
    retryable: false,
    actions: [],
    mcpHint: 'Dry-run again (call without confirmToken) for a new token.',
    mcpNext: CONFIRM_AGAIN,
  },
  confirmation_expired: {
    status: 400,
    message: 'The confirmToken is older than 10 minutes.',
    hint: 'Dry-run again (dryRun: true) for a new confirmToken; show the user the effect again before committing.',
    retryable: false,
    actions: [],
    mcpHint: 'Dry-run again (call without confirmToken) and show the user the effect again.',
    mcpNext: CONFIRM_AGAIN,
  },
  confirmation_mismatch: {
    status: 400,
    message: 'The confirmToken was issued for other SQL or another workspace.',
    hint: 'Send exactly the SQL of the dry run (byte for byte) in its workspace, or dry-run the new SQL for its own token.',
    retryable: false,
    actions: [],
    mcpHint:
      'Call again with exactly the sql of the dry run, or dry-run the new SQL (no confirmToken) for its own token.',
    mcpNext: CONFIRM_AGAIN,
  },
  confirmation_used: {
    status: 409,
    message: 'The confirmToken was already used.',
    hint: 'A confirmToken commits once: read the data to see the change, or dry-run again for a new token.',
    retryable: false,
    actions: [],
    mcpHint:
      'A confirmToken commits once: query the data to see the change, or dry-run again for a new token.',
    mcpNext: CONFIRM_AGAIN,
  },
  payload_too_large: {
    status: 413,
    message: 'The request body is larger than 1 MiB.',
    hint: 'Send a body of at most 1 MiB, e.g. in smaller batches.',
    retryable: false,
    actions: [],
  },
  unsupported_media_type: {
    status: 415,
    message: 'The request body must be JSON (Content-Type: application/json).',
    hint: 'Send the body as JSON with `Content-Type: application/json`.',
    retryable: false,
    actions: [],
  },
  rate_limited: {
    status: 429,
    message: 'Too many requests.',
    hint: 'Wait for the seconds in Retry-After, then retry.',
    retryable: true,
    actions: [],
    mcpNext: 'Wait a moment (Retry-After) and call the tool again.',
    variants: {
      invalid_keys: { hint: 'Use a valid ApiKey (sign in again to get one) after the time in Retry-After.' },
      guard_busy: { hint: 'Wait a second and send it again, or send shorter statements.' },
      key_caps: {
        hint: 'Revoke keys you no longer use (GET /v1/keys lists them, DELETE /v1/keys/{connectionId} revokes one), or reuse one you have.',
      },
    },
  },
  too_many_concurrent_requests: {
    status: 429,
    message: 'Too many SQL requests of this key or user are in flight.',
    hint: 'Wait until one of your SQL requests in flight has answered (Retry-After: 1), then send this one again; send SQL requests one after another rather than all at once.',
    retryable: true,
    actions: [],
    mcpNext: 'Wait a moment (Retry-After) and call the tool again.',
  },
  internal_error: {
    status: 500,
    message: 'Something went wrong on the server.',
    hint: 'Retry later; if it persists, report the X-Request-Id.',
    retryable: true,
    actions: [],
    variants: {
      mail: { hint: 'Retry in a minute; if it persists, the server cannot reach its mail server.' },
    },
  },
  mutation_outcome_unknown: {
    status: 500,
    message: 'The connection was lost while committing: the change may or may not have been applied.',
    hint: IDEMPOTENT_RETRY,
    retryable: false,
    actions: [],
    mcpNext:
      'Do NOT run other writes yet: query the affected rows (e.g. by external_id) to see whether the change is there; only if it is not, call execute again with the same sql and confirmToken (the same Idempotency-Key, so it cannot apply twice).',
    variants: {
      revert: {
        hint: 'The revert may or may not be applied: call history to see whether it is listed.',
        mcpNext:
          'Do NOT run other writes yet: call history to see whether the revert is listed; only if it is not, call revert again with the same changeId and confirmToken (the same Idempotency-Key, so it cannot apply twice).',
      },
    },
  },
  database_unavailable: {
    status: 503,
    message: 'The database is not available; nothing was committed.',
    hint: 'The database is not answering: retry in a few seconds.',
    retryable: true,
    actions: [],
    variants: {
      lock_wait: {
        hint: 'A write still running (often a slow one of yours) holds rows this request needs: retry once it has answered; nothing was changed.',
      },
    },
  },
  deadline_exceeded: {
    status: 504,
    message: 'The request ran past its deadline; nothing was changed.',
    hint: 'Make the request cheaper (narrower filters, fewer rows).',
    retryable: true,
    actions: [],
  },
} as const satisfies Record<string, ErrorEntry>;

/** Every guard code (`guard.md`: SQL refused before it reaches the database) shares one entry. */
export const GUARD_ERROR = {
  status: 400,
  message: 'The SQL is outside the dialect; nothing was run.',
  hint: 'Rewrite the SQL within the dialect (GET /schema lists relations, functions and rules); nothing was run.',
  mcpHint:
    'Rewrite the SQL within the dialect (get_guide sql-dialect and get_schema list the rules); nothing was run.',
  retryable: false,
  actions: ['get_schema'],
  mcpNext: 'Fix the SQL as the hint says (get_guide topic sql-dialect lists the rules) and call again.',
} as const satisfies ErrorEntry;

/** Guard codes with an entry of their own; every other guard code shares GUARD_ERROR. */
export const GUARD_ERRORS = {
  statement_too_complex: {
    status: 400,
    message:
      'The statement expands to too large a tree once PostgreSQL inlines its subqueries; nothing was run.',
    hint: 'Reference each column of a subquery or CTE once, or compute it once in a WITH item declared AS MATERIALIZED; nothing was run.',
    retryable: false,
    actions: ['get_schema'],
    mcpNext:
      'Rewrite the statement as the hint says (reference the repeated column once, or use WITH ... AS MATERIALIZED) and call again.',
  },
} as const satisfies Partial<Record<GuardErrorCode, ErrorEntry>>;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;
export type ErrorCode = HttpErrorCode | GuardErrorCode;

/** The names of a code's variants (none for most codes). */
export type ErrorVariantOf<C extends ErrorCode> = C extends HttpErrorCode
  ? (typeof HTTP_ERRORS)[C] extends { variants: infer V }
    ? keyof V & string
    : never
  : never;

const GUARD_CODES: ReadonlySet<string> = new Set(GUARD_ERROR_CODES);

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(HTTP_ERRORS, code) || GUARD_CODES.has(code);
}

/** The catalogue entry of a code. */
export function errorEntry(code: ErrorCode): ErrorEntry {
  if (Object.hasOwn(HTTP_ERRORS, code)) return HTTP_ERRORS[code as HttpErrorCode];
  return Object.hasOwn(GUARD_ERRORS, code) ? GUARD_ERRORS[code as keyof typeof GUARD_ERRORS] : GUARD_ERROR;
}

export type ResolvedError = Pick<
  ErrorEntry,
  'status' | 'hint' | 'retryable' | 'actions' | 'mcpNext' | 'mcpHint'
>;

/** A code's entry in one of its variants (the entry's own values where the variant names none). */
export function resolveError(code: ErrorCode, variant?: string): ResolvedError {
  const entry = errorEntry(code);
  const v = variant === undefined ? undefined : entry.variants?.[variant];
  const mcpNext = v?.mcpNext ?? entry.mcpNext;
  const mcpHint = v?.mcpHint ?? entry.mcpHint;
  return {
    status: entry.status,
    hint: v?.hint ?? entry.hint,
    retryable: v?.retryable ?? entry.retryable,
    actions: v?.actions ?? entry.actions,
    ...(mcpNext === undefined ? {} : { mcpNext }),
    ...(mcpHint === undefined ? {} : { mcpHint }),
  };
}

/** The HTTP status of a code; guard codes are client errors (400). */
export function statusOf(code: ErrorCode): number {
  return errorEntry(code).status;
}

/**
 * The codes the MCP tools add (`mcp.md`): they arise in the MCP layer itself, before any API call, and have no
 * HTTP status. A tool error carries either one of these or the API's own error object unchanged.
 */
export const MCP_ERRORS = {
  confirmation_declined: { message: 'The user declined the change when asked.' },
  workspace_pinned: { message: 'The server is pinned to one workspace.' },
  invalid_report: { message: 'The report input is out of range.' },
} as const satisfies Record<string, { message: string; hint?: string }>;
export type McpErrorCode = keyof typeof MCP_ERRORS;

/** The next step an MCP tool result names after an API error (code, status and retryability as answered). */
export function mcpNextStep(
  error: { code: string; retryable?: boolean | undefined },
  status: number,
  variant?: string,
): string {
  const known = isErrorCode(error.code) ? resolveError(error.code, variant).mcpNext : undefined;
  if (known) return known;
  if (error.retryable) return HTTP_ERRORS.rate_limited.mcpNext;
  if (status === 400) return GUARD_ERROR.mcpNext;
  return 'Report the error to the user.';
}

/**
 * The hint of an API error in MCP words: the catalogue's `mcpHint` of the situation (entry or variant) whose HTTP
 * hint the API answered. Undefined where the catalogue has none for it (hints built at the throw site).
 */
export function mcpHintOf(error: { code: string; hint?: string | undefined }): string | undefined {
  if (!isErrorCode(error.code)) return undefined;
  const entry = errorEntry(error.code);
  if (error.hint === undefined || error.hint === entry.hint) return entry.mcpHint;
  for (const v of Object.values(entry.variants ?? {})) {
    if (v.hint === error.hint) return v.mcpHint ?? entry.mcpHint;
  }
  return undefined;
}
