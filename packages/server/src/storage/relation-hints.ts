import { FX_SCHEMA_HINTS } from '../fx/hints.js';
import type { UserRelationName } from './names.js';

const FILLED =
  "workspace_id is filled for you from the request's workspace: leave it out; a row naming another workspace is refused.";
const BATCHES =
  'Write long imports as a probe of 1 to 3 rows first, then sequential batches of at most 100 rows per call (100 rows is also the per-request cap on affected rows).';

/** Agent-facing notes on risky constraints and write semantics, shown by GET /schema next to the live columns. */
export const RELATION_HINTS: Record<UserRelationName, string[]> = {
  ledger_entries: [
    'One row per movement of money in one account. amount is signed: negative leaves the account, positive enters it (a purchase of 12.50 is -12.50).',
    "kind is 'income', 'spend' or 'transfer'. A transfer is two rows, one per account (-X on the source, +X on the destination), sharing one event_id, with kind 'transfer' and no category (category must be NULL).",
    'A split purchase is several rows sharing one event_id, each with its own category.',
    'currency is an ISO 4217 code in upper case (USD, EUR); ts is required and orders the ledger; account_id is a name the workspace chooses (e.g. chase-checking).',
    "Set external_id (unique within the workspace) to the source system's id when importing: repeating the import then fails on the duplicate instead of doubling the rows. ON CONFLICT is not available; check with SELECT first.",
    `entry_id, inserted_at and updated_at are generated; ${FILLED}`,
    BATCHES,
    "Filter dates with explicit ranges: ts >= '2026-01-01' AND ts < '2026-02-01'.",
  ],
  budget_lines: [
    'One line per (budget_month, direction, category): a second line for the same key is refused; UPDATE the existing one instead.',
    "budget_month is the first day of the month (DATE '2026-08-01'); direction is 'income' or 'spend'; planned_value is positive (the direction carries the sign).",
    'currency is required, an ISO 4217 code in upper case.',
    `line_id, inserted_at and updated_at are generated; ${FILLED}`,
    BATCHES,
  ],
  workspace_settings: [
    'Exactly one row per workspace, created with the workspace: UPDATE it rather than INSERT.',
    'reporting_currency is an ISO 4217 code in upper case (default USD); first_day_of_week is 1 (Monday) to 7 (Sunday); timezone is an IANA name such as Europe/Berlin (default UTC).',
    `updated_at is maintained for you; ${FILLED}`,
  ],
  account_metadata: [
    'Optional, one row per account_id; the account_id must match the one used in ledger_entries.',
    'account_type is one of checking, savings, credit_card, cash, investment, loan, other; liquidity is high, medium or low; is_archived defaults to false.',
    `inserted_at and updated_at are maintained for you; ${FILLED}`,
  ],
  accounts: [
    'Read-only, derived from ledger_entries and account_metadata: one row per (account_id, currency) with balance = sum of amounts, entry_count, first_ts and last_ts, plus the metadata columns.',
    'An account that has metadata but no entries appears once with currency NULL and balance 0. Change the underlying tables, not this view.',
  ],
  ...FX_SCHEMA_HINTS,
};
