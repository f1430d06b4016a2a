import { GUIDE_TOPICS } from '../guide-topics.js';
import { MAX_REPORT_MONTHS } from '../report-range.js';
import { TRANSFER_RULE } from './rules.js';
import type { ErrorEntry } from './types.js';

const signIn = ['send_code', 'discover'] as const;
const IDEMPOTENT_RETRY =
  'Retry with the same Idempotency-Key: the kept result is replayed if the change was applied, and it runs once if not. Without a key, read the data to check before retrying.';

/** The batching pattern, for a write refused for changing too many rows at once (the CLI's words). */
const BATCHING =
  'Change fewer rows per statement: add a WHERE that selects a batch (e.g. a date range, or id IN (SELECT id ... ORDER BY id LIMIT 100)) and run it again until it affects 0 rows.';
const SESSION_ENDED = 'Your session has ended: sign in again.';
const RELOAD = 'The console sent a request this server does not take: reload the page.';
const CLI_CONFIRM_AGAIN =
  'Run the command again: it makes a new dry run and asks for approval before committing.';

const CONFIRM_AGAIN =
  'Call the same tool (execute, revert or import) without confirmToken for a new dry run, show the user its effect, then confirm with its new token.';

/** The codes of `http-api.md`, in the order of its status table. */
export const HTTP_ERRORS = {
  invalid_request: {
    status: 400,
    message: 'The request is not valid.',
    hint: 'Fix the request as the message (and details, when present) describes, then send it again.',
    mcpHint: 'Call the tool again with the arguments its input schema names (tools/list shows them).',
    retryable: false,
    actions: [],
    mcpNext: 'Fix the arguments as the message says and call the tool again.',
    variants: {
      report_range: {
        hint: `Send from and to as days written YYYY-MM-DD (years 0001 to 9999), from on or before to, at most ${MAX_REPORT_MONTHS} months apart; for a longer period, ask for one report per ${MAX_REPORT_MONTHS} months.`,
        mcpHint: `Call report again with from and to as YYYY-MM-DD days, from on or before to, at most ${MAX_REPORT_MONTHS} months apart; for a longer period, call it once per ${MAX_REPORT_MONTHS} months.`,
        cliHint: `Give --month, or --from and --to, as YYYY-MM months with --from not after --to, at most ${MAX_REPORT_MONTHS} months apart; for a longer period, run one report per ${MAX_REPORT_MONTHS} months.`,
        consoleHint: `Choose a range of at most ${MAX_REPORT_MONTHS} months whose start is not after its end.`,
      },
      export_document: {
        hint: 'Send an export document as GET /v1/workspaces/{workspaceId}/export wrote it (JSON, format "expense-export", a version this server reads; docs/export-format.md), unchanged; nothing was restored.',
        mcpHint: 'Ask the user for a JSON export as the export wrote it, unchanged; nothing was restored.',
        cliHint:
          'Give a file written by `expense export` (JSON, not the CSV zip), unchanged; nothing was restored.',
        consoleHint: 'Choose a file written by Export (JSON), unchanged; nothing was restored.',
      },
      import_account: {
        consoleMessage: 'The file does not say which account its rows belong to.',
        hint: 'The file names no account: send it again with ?account=<account_id>, the account its rows go to (SELECT account_id FROM accounts lists them; ask the user which one).',
        mcpHint:
          'The file names no account: call import again with the account argument, the account_id its rows go to (query SELECT account_id FROM accounts lists them; ask the user which one).',
        cliHint:
          'The file names no account: give --account <id> (`expense query "SELECT account_id FROM accounts"` lists them).',
        consoleHint: 'Type the account in the Account field (e.g. checking), then check the file again.',
      },
      // A statement of several accounts names each itself: an account given for all of them is wrong.
      import_one_account: {
        message: '{{file}} holds {{count}} accounts; ?account= names one.',
        mcpMessage: '{{file}} holds {{count}} accounts; the account argument names one.',
        cliMessage: '{{file}} holds {{count}} accounts; --account names one.',
        consoleMessage: '{{file}} holds {{count}} accounts; an account chosen for the import names one.',
        hint: "Send it again without ?account=: each account of the file is imported under its own (the workspace's account of that name, or a new one).",
        mcpHint:
          "Call import again without the account argument: each account of the file is imported under its own (the workspace's account of that name, or a new one).",
        cliHint:
          'Leave --account out: each account of the file is imported under its own (matched to the workspace’s accounts, or asked).',
        consoleHint:
          'Import it without choosing an account: each account of the file is imported under its own.',
      },
      // A CSV whose layout nothing reads (no header, no bank's layout, columns that cannot be told apart): the
      // reader's own hint proposes `expense import`'s options (--map, --columns, --preset), which the API lacks.
      import_layout: {
        consoleMessage: "The file's columns cannot be told apart.",
        hint: "The file's columns cannot be told apart, and POST /v1/imports takes no column mapping: send the statement as the bank exports it (its CSV download, OFX/QFX, QIF, CAMT.053 or MT940), or the file with its header line renamed to ts, amount, counterparty (GET /schema lists the ledger_entries columns).",
        mcpHint:
          "The file's columns cannot be told apart, and the import tool takes no column mapping: ask the user for the statement as the bank exports it (its CSV download, OFX/QFX, QIF, CAMT.053 or MT940), or ask which columns hold the date, the amount and the payee and call import with the file's header line renamed to ts, amount, counterparty (get_schema lists the ledger_entries columns).",
        cliHint:
          'Give the bank\'s layout with --preset <name>, or map the columns with --map "Column=field" (--columns for a file without a header line); `expense import --help` lists the options.',
        consoleHint: "Choose which of the file's columns hold the date, the amount and the payee.",
      },
      // A CSV whose columns for the ledger's required fields cannot be found (the API takes no column mapping).
      import_columns: {
        message: 'No column for {{missing}}.',
        consoleMessage: 'No column of the file holds {{missing}}.',
        hint: 'The file has no column for {{missing}}: send the statement as the bank exports it (its CSV download, OFX/QFX, QIF, CAMT.053 or MT940), or a CSV whose header line names the ledger_entries columns (ts, amount, counterparty; GET /schema lists them).',
        mcpHint:
          'The file has no column for {{missing}}: ask the user for the statement as the bank exports it (its CSV download, OFX/QFX, QIF, CAMT.053 or MT940), or call import with the header line renamed to ts, amount, counterparty (get_schema lists the ledger_entries columns).',
        cliHint:
          'Name the columns after the fields, or map them: --map "Date=ts" --map "Amount=amount" (`expense import --help` lists the options).',
        consoleHint: "Choose which of the file's columns hold {{missing}}.",
      },
    },
  },
  invalid_email: {
    status: 400,
    message: 'The e-mail address is not valid.',
    hint: 'Ask the user for a valid e-mail address.',
    cliHint: 'Check the address and give it again (--email).',
    consoleHint: 'Check the address and type it again.',
    retryable: false,
    actions: ['send_code'],
  },
  invalid_label: {
    status: 400,
    message: 'The label is not valid.',
    hint: 'Send a label of 1 to 100 characters naming this key.',
    cliHint: 'Give a label of 1 to 100 characters naming this key (--label).',
    consoleHint: 'Give the key a name of 1 to 100 characters.',
    retryable: false,
    actions: ['verify_code'],
  },
  invalid_code: {
    status: 400,
    message: 'The code is not correct.',
    hint: 'Ask the user to check the 8-digit code in the e-mail and send it again.',
    cliHint: 'Check the 8-digit code in the e-mail and enter it again.',
    consoleHint: 'Check the 8-digit code in the e-mail and type it again.',
    retryable: false,
    actions: ['verify_code'],
    variants: {
      void: {
        hint: 'Too many wrong codes: this session is void. Request a new code.',
        cliHint: 'Too many wrong codes: this sign-in is void. Run `expense login` again for a new code.',
      },
    },
  },
  expired_code: {
    status: 400,
    message: 'The code has expired.',
    hint: 'The code is older than 10 minutes: request a new one.',
    cliHint: 'The code is older than 10 minutes: run `expense login` again for a new one.',
    retryable: false,
    actions: ['send_code'],
  },
  invalid_otp_session: {
    status: 400,
    message: 'This sign-in session is not valid any more.',
    hint: 'This sign-in attempt is over (used, replaced, or too many wrong codes): request a new code.',
    cliHint:
      'This sign-in attempt is over (used, replaced, or too many wrong codes): run `expense login` again.',
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
    cliHint: 'Pass --workspace <id or name>, or select one with `expense use <workspace>`.',
    consoleHint: 'Choose a workspace in the header, or create one on the Workspaces page.',
    retryable: false,
    actions: ['list_workspaces', 'select_workspace'],
    mcpNext: 'Call list_workspaces and pass one of its workspaceId values.',
  },
  mutation_row_limit_exceeded: {
    status: 400,
    message: 'The statement changes more rows than allowed; nothing was changed.',
    hint: 'Change fewer rows per request (a narrower WHERE, or several requests); nothing was changed.',
    cliHint: BATCHING,
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
    cliHint:
      'Fix the statement at the position shown (`expense schema` lists the relations, columns and rules) and run it again; nothing was changed.',
    consoleHint: 'Fix the statement at the position shown and run it again; nothing was changed.',
    retryable: false,
    actions: ['get_schema'],
    variants: {
      no_position: {
        hint: 'Fix the statement (GET /schema lists the relations, columns and rules) and send it again; nothing was changed.',
        mcpHint:
          'Fix the statement (get_schema lists the relations, columns and rules) and call again; nothing was changed.',
        cliHint:
          'Fix the statement (`expense schema` lists the relations, columns and rules) and run it again; nothing was changed.',
        consoleHint: 'Fix the statement and run it again; nothing was changed.',
      },
      not_null: {
        hint: '{{column}} is required: give it a value in every row (GET /schema shows which columns are required and which are filled for you).',
        mcpHint:
          '{{column}} is required: give it a value in every row (get_schema shows which columns are required and which are filled for you).',
        cliHint:
          '{{column}} is required: give it a value in every row (`expense schema` shows which columns are required and which are filled for you).',
        consoleHint: '{{column}} is required: give it a value in every row.',
      },
      // A transfer whose legs do not sum to 0 in a currency at commit (the deferred trigger of migration 0015):
      // {{event}} is its event_id as an SQL literal; `transfer_unbalanced_unnamed` where the database named none.
      transfer_unbalanced: {
        hint: `The transfer rows of event_id {{event}} in {{currency}} sum to {{sum}}, not 0. ${TRANSFER_RULE.http} Nothing was saved.`,
        mcpHint: `The transfer rows of event_id {{event}} in {{currency}} sum to {{sum}}, not 0. ${TRANSFER_RULE.mcp} Nothing was saved.`,
        cliHint: `The transfer rows of event_id {{event}} in {{currency}} sum to {{sum}}, not 0. ${TRANSFER_RULE.cli} Nothing was saved.`,
        consoleHint: `The transfer rows of event_id {{event}} in {{currency}} sum to {{sum}}, not 0. ${TRANSFER_RULE.console} Nothing was saved.`,
      },
      transfer_unbalanced_unnamed: {
        hint: `${TRANSFER_RULE.http} Nothing was saved.`,
        mcpHint: `${TRANSFER_RULE.mcp} Nothing was saved.`,
        cliHint: `${TRANSFER_RULE.cli} Nothing was saved.`,
        consoleHint: `${TRANSFER_RULE.console} Nothing was saved.`,
      },
      revert: {
        hint: 'Nothing was reverted. Read the rows this change touched (GET /v1/changes/{changeId}) and fix them with SQL.',
        mcpHint: 'Nothing was reverted. Read the rows this change touched (query) and fix them with execute.',
        cliHint:
          'Nothing was reverted. Read the rows this change touched (`expense query`) and fix them with `expense exec`.',
        consoleHint:
          'Nothing was reverted. Look at the rows this change touched and fix them on the SQL page.',
      },
    },
  },
  missing_api_key: {
    status: 401,
    message: 'This route needs an ApiKey.',
    hint: 'Send the header `Authorization: ApiKey <key>`; sign in to get a key.',
    cliHint: 'Run `expense login`, or set EXPENSE_API_KEY.',
    consoleHint: SESSION_ENDED,
    retryable: false,
    actions: signIn,
    mcpNext: 'The key is not valid (revoked?): the user signs in again (`expense login`).',
  },
  invalid_api_key: {
    status: 401,
    message: 'The ApiKey is not valid.',
    hint: 'The key is unknown or revoked: sign in again to get a new key.',
    cliHint: 'The key is unknown or revoked: run `expense login` to get a new one.',
    consoleHint: SESSION_ENDED,
    retryable: false,
    actions: signIn,
    mcpNext: 'The key is not valid (revoked?): the user signs in again (`expense login`).',
    variants: {
      // details: {reason: 'removed_from_workspace', workspaceId, workspaceName (null once deleted), revokedAt}
      removed_from_workspace: {
        hint: 'An owner removed you from the workspace named in the message, which revoked all of your keys. Signing in again gives a new key for your other workspaces, never that one: ask one of its owners to invite you again, then accept the invitation (GET /invitations).',
        mcpHint:
          'An owner removed you from the workspace named in the message, which revoked all of your keys. Signing in again (`expense login`) gives a new key for your other workspaces, never that one: ask one of its owners to invite you again, then accept the invitation.',
        cliHint:
          'An owner removed you from the workspace named in the message, which revoked all of your keys. `expense login` gives a new key for your other workspaces, never that one: ask one of its owners to invite you again, then accept the invitation.',
        consoleHint:
          'An owner removed you from the workspace named in the message, which ended your session. Signing in again opens your other workspaces, not that one: ask one of its owners to invite you again.',
        mcpNext:
          'The user was removed from that workspace: ask one of its owners for a new invitation; signing in again does not restore it.',
      },
    },
  },
  forbidden: {
    status: 403,
    message: 'Your role in this workspace does not allow this.',
    hint: 'Only an owner of the workspace can do this.',
    consoleHint: 'Only an owner of this workspace can do this; ask one of its owners.',
    retryable: false,
    actions: ['list_workspaces'],
    variants: {
      read_only_key: {
        hint: 'Use read-only routes (GET routes, POST /sql/query), or ask the user to connect again with read-write access.',
        mcpHint:
          'Use the reading tools (query, report, get_schema), or ask the user to connect again with read-write access.',
        cliHint:
          'This key only reads: use `expense query`, or sign in again with `expense login` for a key that writes.',
        consoleHint: 'This session only reads: sign in again.',
      },
      narrow_key: {
        hint: 'Create keys from the console or with a key from `expense login` (full access, all workspaces).',
        consoleHint: 'Create keys on the Keys page.',
      },
      // facts: {workspace}, the one workspace the key may use
      workspace_bound_key: {
        hint: 'Work in workspace {{workspace}}, or ask the user to connect again with access to all workspaces.',
        cliHint:
          'Work in workspace {{workspace}}, or sign in again with `expense login` for a key to all workspaces.',
        consoleHint: 'Work in workspace {{workspace}}, or connect again with access to all workspaces.',
      },
      other_workspace_key: {
        hint: 'Use workspace {{workspace}} (or no X-Workspace-Id), or ask the user to connect again with access to this workspace.',
        mcpHint:
          'Use workspace {{workspace}} (or no workspaceId), or ask the user to connect again with access to this workspace.',
        cliHint:
          'Use workspace {{workspace}} (or no --workspace), or sign in again with `expense login` for a key to this workspace.',
        consoleHint: 'Use workspace {{workspace}}, or connect again with access to this workspace.',
      },
      account_scope: {
        hint: "This key's consent covers data, not your account: manage keys and invitations in the console or with a key from `expense login` (full access, all workspaces).",
        consoleHint: 'Manage keys and invitations on the Keys and Home pages.',
      },
    },
  },
  not_found: {
    status: 404,
    message: 'No such resource.',
    hint: 'Start from discovery and follow its actions.',
    cliHint: 'Check the id or name: `expense workspaces`, `expense history` and `expense keys` list them.',
    consoleHint: 'It is not there (any more): reload the page.',
    retryable: false,
    actions: ['discover'],
    variants: {
      change: {
        hint: 'List the changes with GET /v1/changes and use one of their changeIds.',
        mcpHint: 'Call history and use one of its changeIds.',
        cliHint: 'List the changes with `expense history` and use one of their ids.',
        consoleHint: 'Pick a change on the Activity page.',
      },
      dropped_change: {
        hint: 'Its rows and SQL are no longer stored, so it cannot be shown or reverted: undo it with SQL of your own, or list the changes kept with GET /v1/changes.',
        mcpHint:
          'Its rows and SQL are no longer stored, so it cannot be reverted: undo it with execute, or call history for the changes kept.',
        cliHint:
          'Its rows and SQL are no longer stored, so it cannot be shown or reverted: undo it with `expense exec`, or list the changes kept with `expense history`.',
        consoleHint:
          'Its rows and SQL are no longer stored, so it cannot be shown or reverted: undo it with a statement of your own on the SQL page.',
      },
      invitation: {
        hint: 'List your pending invitations with GET /invitations.',
        mcpHint:
          'There is no such pending invitation: the user sees theirs in the console or with `expense invitations`.',
        cliHint: 'See your invitations with `expense invitations`.',
        consoleHint: 'Your pending invitations are on the Home page.',
      },
      guide_topic: {
        hint: `Topics: ${GUIDE_TOPICS.join(', ')}; GET /v1/guide has them all.`,
        mcpHint: `Topics: ${GUIDE_TOPICS.join(', ')}; get_guide without a topic has them all.`,
        cliHint: `Topics: ${GUIDE_TOPICS.join(', ')}.`,
        consoleHint: `Topics: ${GUIDE_TOPICS.join(', ')}.`,
      },
      key: { actions: ['list_keys'] },
    },
  },
  workspace_not_found: {
    status: 404,
    message: 'No workspace with this id is available to you.',
    hint: 'Use a workspaceId from the workspace list.',
    cliHint: 'Use a workspace that `expense workspaces` lists.',
    consoleHint: 'Choose a workspace in the header.',
    retryable: false,
    actions: ['list_workspaces'],
    mcpNext: 'Call list_workspaces and pass one of its workspaceId values.',
  },
  method_not_allowed: {
    status: 405,
    message: 'This method is not allowed on this route.',
    hint: 'Use a method this route allows (see the Allow header).',
    consoleHint: RELOAD,
    retryable: false,
    actions: ['discover'],
  },
  idempotency_key_reused: {
    status: 409,
    message: 'This Idempotency-Key was already used with another request (body, endpoint or workspace).',
    hint: 'Use a new Idempotency-Key for every different request.',
    consoleHint: 'This request clashed with an earlier one: reload the page and try again.',
    retryable: false,
    actions: [],
    variants: {
      in_progress: {
        hint: 'Send the same request with the same Idempotency-Key again in a few seconds to get its result.',
        consoleHint: 'The same change is still being saved: wait a few seconds and reload the page.',
        retryable: true,
      },
      taken_over: {
        hint: 'A retry with the same Idempotency-Key took this request over: its answer is the one that counts.',
        consoleHint: 'A retry of this request took it over: its result is the one that counts.',
        retryable: true,
      },
    },
  },
  last_owner: {
    status: 409,
    message: 'The last owner of a workspace cannot be removed.',
    hint: 'Add another owner first, or keep this owner.',
    consoleHint: 'Make someone else an owner first; a workspace always keeps one.',
    retryable: false,
    actions: ['list_members'],
  },
  change_conflict: {
    status: 409,
    message: 'Rows of this change were changed since; nothing was reverted.',
    hint: 'Rows of this change were changed again since (details.rows): read them with GET /v1/changes, then revert the later changes first or fix the rows with SQL; nothing was changed.',
    mcpHint:
      'Rows of this change were changed again since (details.rows): call history, then revert the later changes first or fix the rows with execute; nothing was changed.',
    cliHint:
      'Rows of this change were changed again since: see the later changes with `expense history`, revert them first or fix the rows with `expense exec`; nothing was changed.',
    consoleHint:
      'Rows of this change were changed again since: revert the later changes first (Activity page), or fix the rows on the SQL page; nothing was changed.',
    retryable: false,
    actions: [],
    mcpNext:
      'Rows changed since that change (error.details.rows): tell the user; revert the later changes first (history lists them), or fix the rows with execute.',
  },
  ambiguous_change_id: {
    status: 409,
    message: 'More than one change matches this id.',
    hint: 'Send one of the changeIds in details.candidates (whole, or its shortId from GET /v1/changes).',
    mcpHint: 'Call history and pass one of the changeIds in details.candidates.',
    cliHint: 'Give one of the ids listed (whole, or more of its characters).',
    consoleHint: 'Pick the change on the Activity page.',
    retryable: false,
    actions: [],
  },
  workspace_name_taken: {
    status: 409,
    message: 'You already have a workspace with this name.',
    hint: 'Choose another name, or use the workspace you have (GET /v1/workspaces lists it); names are compared ignoring case.',
    mcpHint:
      'Ask the user for another name, or use the workspace they have (list_workspaces lists it); names are compared ignoring case.',
    cliHint:
      'Choose another name, or use the one you have: `expense use <name>` (`expense workspaces` lists them); names are compared ignoring case.',
    consoleHint: 'Choose another name, or switch to the workspace you already have (Workspaces page).',
    retryable: false,
    actions: ['list_workspaces'],
  },
  workspace_not_empty: {
    status: 409,
    message: 'The workspace already holds data; nothing was restored.',
    hint: "Restore into a new workspace (POST /v1/workspaces, then POST /v1/workspaces/{workspaceId}/restore), or send ?replace=true to delete this workspace's data and history of its rows in the same change first.",
    mcpHint:
      'Tell the user the workspace holds data; restore into a new workspace, or replace its data only if the user says so.',
    cliHint:
      "Restore into a new workspace (`expense workspaces create <name>`, then `expense restore <file> --workspace <new>`), or add --replace to delete this workspace's data first.",
    consoleHint: 'This workspace already holds data: create a new workspace and restore into it.',
    retryable: false,
    actions: ['create_workspace', 'list_workspaces'],
  },
  limit_reached: {
    status: 409,
    message: 'A per-user limit was reached.',
    hint: 'Free a place first (details.limit and details.current say how many you have), then send the request again.',
    cliHint: 'Free a place first (`--json` shows the limit and how many you have), then run it again.',
    consoleHint: 'You have reached a limit: remove one you no longer need, then try again.',
    retryable: false,
    actions: [],
    variants: {
      workspaces: {
        hint: 'You own as many workspaces as a user may (details.limit): reuse one of them (GET /v1/workspaces lists them) instead of creating another.',
        mcpHint:
          'You own as many workspaces as a user may (details.limit): reuse one of them (list_workspaces lists them) instead of creating another.',
        cliHint:
          'You own as many workspaces as a user may: reuse one of them (`expense workspaces` lists them) instead of creating another.',
        consoleHint:
          'You own as many workspaces as a user may: use one of them (Workspaces page) instead of creating another.',
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
    cliHint: CLI_CONFIRM_AGAIN,
    consoleHint: 'Run the dry run again, then confirm.',
    mcpNext: CONFIRM_AGAIN,
  },
  confirmation_expired: {
    status: 400,
    message: 'The confirmToken is older than 10 minutes.',
    hint: 'Dry-run again (dryRun: true) for a new confirmToken; show the user the effect again before committing.',
    retryable: false,
    actions: [],
    mcpHint: 'Dry-run again (call without confirmToken) and show the user the effect again.',
    cliHint: CLI_CONFIRM_AGAIN,
    consoleHint: 'The dry run is too old: run it again, then confirm.',
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
    cliHint: CLI_CONFIRM_AGAIN,
    consoleHint: 'The statement changed after the dry run: run the dry run again, then confirm.',
    mcpNext: CONFIRM_AGAIN,
    variants: {
      import: {
        hint: 'Send exactly the file of the dry run (byte for byte), with the same account, chargesPositive or chargesNegative and currency, in its workspace; or dry-run the new file for its own confirmToken.',
        mcpHint:
          'Call import again with exactly the file, account, charges and currency of the dry run, or dry-run the new file (no confirmToken) for its own token.',
        cliHint: CLI_CONFIRM_AGAIN,
        consoleHint: 'The file changed after the dry run: run the dry run again, then confirm.',
        mcpNext:
          'Call import without confirmToken for a new dry run of this file, show the user the rows it would add, then commit with its new token.',
      },
      workspace_name: {
        hint: "Send confirmName equal to the workspace's name exactly (GET /v1/workspaces lists it), after the user has typed it: the deletion is final and nothing was deleted yet.",
        mcpHint: "Ask the user to type the workspace's name exactly; nothing was deleted.",
        cliHint: "Type the workspace's name exactly as `expense workspaces` shows it; nothing was deleted.",
        consoleHint: "Type the workspace's name exactly as shown; nothing was deleted.",
      },
      account_email: {
        hint: "Send confirmEmail equal to the account's e-mail address (GET /v1/me shows it), after the user has typed it: the deletion is final and nothing was deleted yet.",
        mcpHint: "Ask the user to type the account's e-mail address; nothing was deleted.",
        cliHint: 'Type the e-mail address `expense whoami` shows; nothing was deleted.',
        consoleHint: 'Type your e-mail address exactly as shown; nothing was deleted.',
      },
    },
  },
  confirmation_used: {
    status: 409,
    message: 'The confirmToken was already used.',
    hint: 'A confirmToken commits once: read the data to see the change, or dry-run again for a new token.',
    retryable: false,
    actions: [],
    mcpHint:
      'A confirmToken commits once: query the data to see the change, or dry-run again for a new token.',
    cliHint: 'This change was already committed: `expense history` shows it.',
    consoleHint: 'This change was already confirmed.',
    mcpNext: CONFIRM_AGAIN,
  },
  import_unreadable: {
    status: 400,
    message: 'The file is not a bank export that can be read; nothing was imported.',
    hint: 'Send the statement as the bank exports it (CSV, OFX/QFX, QIF, CAMT.052/053/054 or MT940; not a zip, PDF or workbook) as the body of POST /v1/imports; details.problems names the lines to fix.',
    mcpHint:
      'Call import with the statement as the bank exports it (CSV, OFX/QFX, QIF, CAMT.053 or MT940 text; not a zip, PDF or workbook); details.problems names the lines to fix.',
    cliHint:
      'Import the statement as the bank exports it (CSV, OFX/QFX, QIF, CAMT.053 or MT940; unpack an archive first); nothing was sent.',
    consoleHint:
      'Choose the statement as the bank exports it (CSV, OFX/QFX, QIF, CAMT.053 or MT940; not a zip, PDF or workbook); nothing was imported.',
    retryable: false,
    actions: [],
    variants: {
      // The CSV does not parse (a quote left open, a line of another width): the message names the line.
      csv_syntax: {
        hint: 'The file does not parse as CSV at the line the message names: send the statement as the bank exports it (its CSV download, not a file saved from a spreadsheet) as the body of POST /v1/imports; nothing was imported.',
        mcpHint:
          'The file does not parse as CSV at the line the message names: ask the user for the statement as the bank exports it (its CSV download), and call import with it; nothing was imported.',
        cliHint:
          "Check the delimiter (--delimiter ',' ';' or tab) and the lines above the header (--skip-lines <n>); nothing was sent.",
        consoleHint:
          'The file does not read as CSV at that line: choose the statement as the bank exports it; nothing was imported.',
      },
      // Rows that do not validate (details.problems names each line and field).
      rows_refused: {
        hint: 'Fix the lines details.problems names, or send the file with its header line renamed to the ledger_entries columns (GET /schema lists them), and send it again; nothing was imported.',
        mcpHint:
          'Tell the user the lines details.problems names; call import again with those lines fixed, or with the header line renamed to ts, amount, counterparty; nothing was imported.',
        cliHint: 'Fix the lines below (or map the columns with --map) and run the import again.',
        consoleHint: 'Fix the lines listed below in the file and choose it again; nothing was imported.',
      },
    },
  },
  import_ambiguous_sign: {
    status: 400,
    message: 'Which way the amounts point cannot be told from the file; nothing was imported.',
    hint: 'Ask the user how the card statement writes its charges (spending), then send the same body again with ?chargesPositive=true if they are positive numbers or ?chargesNegative=true if they are negative.',
    mcpHint:
      'Ask the user how the card statement writes its charges (spending), then call import again with charges: "positive" (positive numbers) or charges: "negative" (negative numbers).',
    cliHint:
      'Run it again with --charges-positive if its charges (spending) are positive numbers, with --charges-negative if they are negative.',
    consoleHint:
      'Say how this card statement writes its charges (spending): as positive or as negative numbers; nothing was imported.',
    retryable: false,
    actions: [],
  },
  import_unbalanced: {
    status: 400,
    message:
      "The statement's balances do not add up (details.reconciliation has the difference); nothing was imported.",
    hint: 'The file is incomplete or altered: download the statement again from the bank and send that file; details.reconciliation gives opening, closing, the sum of the booked entries and the difference.',
    mcpHint:
      'The file is incomplete or altered: tell the user the difference in details.reconciliation and ask for the statement downloaded again from the bank.',
    cliHint:
      'The file is incomplete or altered: download the statement again from the bank; nothing was sent.',
    consoleHint:
      'The statement does not add up (incomplete or altered): download it again from the bank; nothing was imported.',
    retryable: false,
    actions: [],
  },
  import_too_large: {
    status: 413,
    message: 'The file is larger than 10 MiB; nothing was imported.',
    hint: 'Export a shorter period from the bank (at most 10 MiB a file) and send each file to POST /v1/imports, or import the large file with `expense import`.',
    mcpHint: 'Ask the user for a shorter period from the bank (at most 10 MiB a file), and import each file.',
    cliHint: 'Export a shorter period from the bank and import each file; nothing was sent.',
    consoleHint: 'The file is too large: export a shorter period from the bank and import each file.',
    retryable: false,
    actions: [],
    variants: {
      // The request said its length (Content-Length) before its body was read.
      declared_length: {
        message: 'The file is {{length}} bytes; POST /v1/imports reads at most {{limit}} (10 MiB).',
        mcpMessage: 'The file is {{length}} bytes; the import tool reads at most {{limit}} (10 MiB).',
        cliMessage: 'The file is {{length}} bytes; the API reads at most {{limit}} (10 MiB) a file.',
        consoleMessage: 'The file is {{length}} bytes; an import reads at most 10 MiB.',
      },
    },
  },
  request_timeout: {
    status: 408,
    message: 'The request did not arrive in full in time; the connection is closed.',
    hint: 'Open a new connection and send the whole request (headers and body) at once: the server waits a limited time for it (30 s unless configured otherwise).',
    cliHint: 'The connection was too slow: run the command again.',
    consoleHint: 'The connection was too slow: try again.',
    retryable: true,
    actions: [],
  },
  payload_too_large: {
    status: 413,
    message: 'The request body is larger than 1 MiB.',
    hint: 'Send a body of at most 1 MiB, e.g. in smaller batches.',
    retryable: false,
    actions: [],
    variants: {
      restore: {
        hint: 'An export to restore may be at most EXPENSE_RESTORE_MAX_BYTES (256 MiB unless configured): ask the operator to raise it, or restore on the server with `expense-server restore` (whole server).',
        mcpHint:
          'The export is larger than this server takes in one restore: ask the operator to raise EXPENSE_RESTORE_MAX_BYTES.',
        consoleHint:
          'The export is larger than this server takes in one restore: ask its operator to raise the limit.',
        cliHint:
          'The export is larger than this server takes in one restore (EXPENSE_RESTORE_MAX_BYTES): ask its operator to raise the limit.',
      },
    },
  },
  unsupported_media_type: {
    status: 415,
    message: 'The request body must be JSON (Content-Type: application/json).',
    hint: 'Send the body as JSON with `Content-Type: application/json`.',
    consoleHint: RELOAD,
    retryable: false,
    actions: [],
  },
  rate_limited: {
    status: 429,
    message: 'Too many requests.',
    hint: 'Wait for the seconds in Retry-After, then retry.',
    cliHint: 'Wait a few seconds, then run it again.',
    consoleHint: 'Too many requests in a short time: wait a moment and try again.',
    retryable: true,
    actions: [],
    mcpNext: 'Wait a moment (Retry-After) and call the tool again.',
    variants: {
      invalid_keys: {
        hint: 'Use a valid ApiKey (sign in again to get one) after the time in Retry-After.',
        cliHint: 'Run `expense login` for a valid key, then try again in a minute.',
        consoleHint: 'Sign in again in a minute.',
      },
      guard_busy: { hint: 'Wait a second and send it again, or send shorter statements.' },
      workspace_busy: {
        hint: 'A write to this workspace is in progress right now: send the same request again after the seconds in Retry-After; nothing was deleted or restored.',
        mcpHint:
          'A write to this workspace is in progress right now: call again in a second; nothing was changed.',
        cliHint:
          'A write to this workspace is in progress right now: run it again in a second; nothing was changed.',
        consoleHint:
          'Someone is writing to this workspace right now: try again in a moment; nothing was changed.',
      },
      invitation_busy: {
        hint: 'Another invitation to this workspace or of this address is being written right now: send this invitation again after the seconds in Retry-After (it counts against your hourly invitations either way); nothing was changed.',
        cliHint:
          'Another invitation to this workspace or of this address is being sent right now: run it again in a second.',
        consoleHint:
          'Another invitation to this workspace or of this address is being sent right now: try again in a moment.',
      },
      key_caps: {
        hint: 'Revoke keys you no longer use (GET /v1/keys lists them, DELETE /v1/keys/{connectionId} revokes one), or reuse one you have.',
        mcpHint:
          'Ask the user to revoke keys they no longer use (in the console, or with `expense keys revoke`), or to reuse one they have.',
        cliHint:
          'Revoke keys you no longer use (`expense keys` lists them, `expense keys revoke <connectionId>` revokes one), or reuse one you have.',
        consoleHint: 'Revoke keys you no longer use on the Keys page, or reuse one you have.',
      },
    },
  },
  too_many_concurrent_requests: {
    status: 429,
    message: 'Too many SQL requests of this key or user are in flight.',
    hint: 'Wait until one of your SQL requests in flight has answered (Retry-After: 1), then send this one again; send SQL requests one after another rather than all at once.',
    consoleHint: 'The console is still busy with your other requests: wait a moment and try again.',
    retryable: true,
    actions: [],
    mcpNext: 'Wait a moment (Retry-After) and call the tool again.',
  },
  internal_error: {
    status: 500,
    message: 'Something went wrong on the server.',
    hint: 'Retry later; if it persists, report the X-Request-Id.',
    cliHint: 'Try again later; if it persists, report the requestId that `--json` shows.',
    consoleHint: "Try again later; if it keeps happening, tell the server's operator.",
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
    cliHint:
      'Check whether the change is there (`expense history` lists it if it was applied) before running it again.',
    consoleHint:
      'The connection was lost while saving: check whether the change is there (Activity page) before trying again.',
    retryable: false,
    actions: [],
    mcpNext:
      'Do NOT run other writes yet: query the affected rows (e.g. by external_id) to see whether the change is there; only if it is not, call execute again with the same sql and confirmToken (the same Idempotency-Key, so it cannot apply twice).',
    variants: {
      revert: {
        hint: 'The revert may or may not be applied: see whether GET /v1/changes lists it; only if it does not, send the revert again with the same Idempotency-Key.',
        mcpHint: 'The revert may or may not be applied: call history to see whether it is listed.',
        cliHint: 'The revert may or may not be applied: see whether `expense history` lists it.',
        consoleHint: 'The revert may or may not be applied: see whether the Activity page lists it.',
        mcpNext:
          'Do NOT run other writes yet: call history to see whether the revert is listed; only if it is not, call revert again with the same changeId and confirmToken (the same Idempotency-Key, so it cannot apply twice).',
      },
      import: {
        hint: 'The import may or may not be committed: send the same file again with the same confirmToken or Idempotency-Key; its committed batches are replayed, not added twice, and the rest are committed.',
        mcpHint: 'The import may or may not be committed: call history to see whether it is listed.',
        cliHint: 'The import may or may not be committed: see whether `expense history` lists it.',
        consoleHint: 'The import may or may not be saved: see whether the Activity page lists it.',
        mcpNext:
          'Do NOT run other writes yet: call import again with the same file, arguments and confirmToken (its batches keep the Idempotency-Key of the token: what was committed is replayed, never added twice), or call history to see whether the import is listed.',
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
    variants: {
      engine_busy: {
        hint: 'The embedded database was busy with other users: send it again in a moment, or make it cheaper (narrower filters) or smaller (fewer rows per write) so it finishes within its share; nothing was changed.',
        mcpHint:
          'The embedded database was busy with other users: call again in a moment, or make the statement cheaper or smaller so it finishes within its share; nothing was changed.',
        cliHint:
          'The embedded database was busy with other users: run it again in a moment, or make it cheaper or smaller; nothing was changed.',
        consoleHint:
          'The database was busy with other people’s requests: try again in a moment; nothing was changed.',
      },
    },
  },
} as const satisfies Record<string, ErrorEntry>;
