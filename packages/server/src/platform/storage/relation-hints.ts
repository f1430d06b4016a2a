import { type Clock, TRANSFER_RULE } from '@expense/wire';
import { addDays } from '../clock/clock.js';
import type { UserRelationName } from './names.js';

// One home for what an agent is told about the relations: GET /schema shows the relation hints, and the SQL
// endpoints answer a refusal (a constraint, a blocked function) with the matching sentence from here.

const FILLED =
  "workspace_id is filled for you from the request's workspace: leave it out; a row naming another workspace is refused.";
const BATCHES =
  'Write long imports as a probe of 1 to 3 rows first, then sequential batches of at most 100 rows per call (100 rows is also the per-request cap on affected rows).';

/** Recipes within the dialect, quoted by /schema and by the refusals of the functions they replace. */
export const RECIPES = {
  reuseCategories:
    'Reuse the workspace\'s category names: SELECT DISTINCT category FROM ledger_entries ORDER BY category before writing, and do not invent variants ("Groceries" next to "groceries").',
  budgetCategories:
    'category must equal ledger_entries.category exactly (same case and spelling), or budget-vs-actual comparisons miss the entries: take the names from SELECT DISTINCT category FROM ledger_entries.',
  caseInsensitive:
    "LOWER and UPPER are not available. Match case-insensitively with ILIKE (category ILIKE 'groceries', note ILIKE '%coffee%'); group spelling variants together with CASE, e.g. GROUP BY CASE WHEN category ILIKE 'groceries' THEN 'groceries' ELSE category END; better, keep one spelling (reuse the names from SELECT DISTINCT category FROM ledger_entries).",
  monthBuckets:
    "Bucket by month with explicit ranges of TIMESTAMPTZ literals (no DATE_TRUNC or EXTRACT; local midnights, since SQL runs in the workspace's time zone; unlike DATE bounds, an index on ts can use them): SELECT m.month_start::date AS month_start, COALESCE(SUM(e.amount), 0) AS total FROM (VALUES (TIMESTAMPTZ '2026-01-01 00:00:00', TIMESTAMPTZ '2026-02-01 00:00:00'), (TIMESTAMPTZ '2026-02-01 00:00:00', TIMESTAMPTZ '2026-03-01 00:00:00')) AS m (month_start, month_end) LEFT JOIN ledger_entries e ON e.ts >= m.month_start AND e.ts < m.month_end GROUP BY m.month_start ORDER BY m.month_start",
  monthCalendar:
    "For many months, generate the calendar: WITH RECURSIVE months (month_start) AS (SELECT TIMESTAMPTZ '2026-01-01 00:00:00' UNION ALL SELECT month_start + INTERVAL '1 month' FROM months WHERE month_start < TIMESTAMPTZ '2026-12-01 00:00:00') SELECT m.month_start::date AS month_start, COALESCE(SUM(e.amount), 0) AS total FROM months m LEFT JOIN ledger_entries e ON e.ts >= m.month_start AND e.ts < m.month_start + INTERVAL '1 month' GROUP BY m.month_start ORDER BY m.month_start",
  numericStrings:
    'numeric and bigint values come back as decimal strings ("-12.50", "100"): a JSON number is binary floating point and would lose digits of money. Parse them as decimals; in SQL write amounts as plain numbers (-12.50).',
  transferRule: TRANSFER_RULE.http,
} as const;

/**
 * The hint for NOW(), CURRENT_DATE and the like: today's date in the workspace's time zone, as literals. Ranges
 * on ts are TIMESTAMPTZ literals: compared with a timestamptz column, a DATE goes through timestamptz_ge_date,
 * which is not leakproof, so under row-level security PostgreSQL cannot use the (workspace_id, ts) index with it.
 */
export function dateLiteralHint(clock: Clock): string {
  const { today, timeZone } = clock;
  const tomorrow = addDays(today, 1);
  return `write the date as a literal: today is ${today} in ${timeZone} (data.clock of every SQL result); for today's entries ts >= TIMESTAMPTZ '${today} 00:00:00' AND ts < TIMESTAMPTZ '${tomorrow} 00:00:00' (local midnights: SQL runs in ${timeZone}; TIMESTAMPTZ bounds let an index on ts work, DATE bounds do not); a date column (budget_month, calendar_date) takes DATE '${today}'`;
}

/** Agent-facing notes on risky constraints and write semantics, shown by GET /schema next to the live columns. */
type FxRelationName = 'fx_rates_raw' | 'fx_rates_daily';

/** The hints of the workspace relations; the FX relations' depend on the window (see relationHints). */
const WORKSPACE_RELATION_HINTS: Record<Exclude<UserRelationName, FxRelationName>, string[]> = {
  ledger_entries: [
    'One row per movement of money in one account. amount is signed: negative leaves the account, positive enters it (a purchase of 12.50 is -12.50).',
    "kind is 'income', 'spend' or 'transfer'. A transfer is two rows, one per account (-X on the source, +X on the destination), sharing one event_id (required on transfers), with kind 'transfer' and no category (category must be NULL).",
    RECIPES.transferRule,
    'A split purchase is several rows sharing one event_id, each with its own category.',
    'currency is an ISO 4217 code in upper case (USD, EUR); ts is required and orders the ledger; account_id is a name the workspace chooses (e.g. chase-checking).',
    RECIPES.reuseCategories,
    "Set external_id (unique within the workspace) to the source system's id when importing: repeating the import then fails on the duplicate instead of doubling the rows. ON CONFLICT is not available; check with SELECT first.",
    `entry_id, inserted_at and updated_at are generated; ${FILLED}`,
    BATCHES,
    "Filter dates with explicit ranges: ts >= '2026-01-01' AND ts < '2026-02-01'.",
    RECIPES.monthBuckets,
  ],
  budget_lines: [
    'One line per (budget_month, direction, category): a second line for the same key is refused; UPDATE the existing one instead.',
    "budget_month is the first day of the month (DATE '2026-08-01'); direction is 'income' or 'spend'; planned_value is positive (the direction carries the sign).",
    RECIPES.budgetCategories,
    'currency is required, an ISO 4217 code in upper case.',
    `line_id, inserted_at and updated_at are generated; ${FILLED}`,
    BATCHES,
  ],
  workspace_settings: [
    'Exactly one row per workspace, created with the workspace: UPDATE it rather than INSERT.',
    'reporting_currency is an ISO 4217 code in upper case (default USD); first_day_of_week is 1 (Monday) to 7 (Sunday); timezone is an IANA name such as Europe/Berlin (default UTC).',
    "Confirm the reporting currency and time zone with the user once: UPDATE workspace_settings SET reporting_currency = 'EUR', timezone = 'Europe/Berlin'. data.clock.today follows the time zone.",
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
};

/** Hints for the two FX relations; `fxDays` is the window of the daily table (EXPENSE_FX_DAYS). */
function fxRelationHints(fxDays: number): Record<FxRelationName, string[]> {
  return {
    fx_rates_raw: [
      'Read-only ECB reference rates as published: base_currency is always EUR, rate = units of quote_currency per 1 EUR, market days only (no weekends or TARGET holidays).',
      'To convert amounts use fx_rates_daily instead: it has every day and every currency pair.',
    ],
    fx_rates_daily: [
      'Read-only. rate = units of quote_currency per 1 base_currency on calendar_date; amount_in_quote = amount * rate.',
      'Convert with one join: JOIN fx_rates_daily r ON r.base_currency = e.currency AND r.quote_currency = s.reporting_currency AND r.calendar_date = e.ts::date (s = workspace_settings, joined ON true).',
      'Every ordered pair of known currencies is present, including X->X (rate 1); inverse pairs are 1/rate and cross pairs go through EUR.',
      'Weekends and holidays carry the last published rate forward; source_rate_date is the market day the rate comes from.',
      `The window is bounded: from ${fxDays} days before the latest published rate to today. Dates outside it (or before a currency's first rate) have no row, so use LEFT JOIN and count(r.rate) to find unconverted entries.`,
    ],
  };
}

/** What /schema says about each relation, for a server whose FX window is `fxDays`. */
export function relationHints(fxDays: number): Record<UserRelationName, string[]> {
  return { ...WORKSPACE_RELATION_HINTS, ...fxRelationHints(fxDays) };
}

/** What a refusal carries beyond its constraint: values the database named. */
export interface RefusalFacts {
  /** The external_id that already exists (migration 0016 names it). */
  externalId?: string;
  /** The transfer event that does not balance (migration 0015 names it; the catalogue's transfer_unbalanced). */
  transfer?: { eventId: string; currency: string; sum: string };
}

/** A value as an SQL string literal. */
export const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;
const ISO_4217 =
  'must be an ISO 4217 code of three upper-case letters (EUR, USD, GBP; not "eur", "€" or "Euro"): check that value in every row you sent';
const allowed = (column: string, values: string[]) =>
  `${column} must be one of ${values.map(quote).join(', ')} (lower case, exactly as written).`;

/** The next step for each named constraint of the seven relations. */
const CONSTRAINT_HINTS: Record<string, (facts: RefusalFacts) => string> = {
  ledger_entries_external_id_key: ({ externalId }) =>
    externalId === undefined
      ? 'An external_id of this statement already exists in this workspace (or repeats within the statement): those rows were written before. Find them with SELECT external_id FROM ledger_entries WHERE external_id IN (...), and send only the rows not found; nothing of this request was saved.'
      : `The row with external_id ${quote(externalId)} already exists in this workspace (written before, or by an earlier row of this statement). Find every row of this batch that exists with SELECT external_id FROM ledger_entries WHERE external_id IN (...), and send only the others; nothing of this request was saved.`,
  ledger_entries_currency_check: () => `currency ${ISO_4217}.`,
  budget_lines_currency_check: () => `currency ${ISO_4217}.`,
  workspace_settings_currency_check: () => `reporting_currency ${ISO_4217}.`,
  ledger_entries_transfer_without_category: () =>
    "A transfer moves money between two of the user's own accounts, so it is neither income nor spending and has no category: set category to NULL on kind 'transfer' rows (a payment to someone else is kind 'spend' with a category).",
  ledger_entries_transfer_event_id: () =>
    "A transfer row needs an event_id: its two legs (-X on the source account, +X on the destination) share one event_id, e.g. 'transfer-2026-08-10-savings'.",
  ledger_entries_kind_check: () => allowed('kind', ['income', 'spend', 'transfer']),
  budget_lines_direction_check: () => allowed('direction', ['income', 'spend']),
  account_metadata_account_type_check: () =>
    allowed('account_type', ['checking', 'savings', 'credit_card', 'cash', 'investment', 'loan', 'other']),
  account_metadata_liquidity_check: () => allowed('liquidity', ['high', 'medium', 'low']),
  budget_lines_month_direction_category_key: () =>
    'A budget line for this (budget_month, direction, category) already exists: change it with UPDATE budget_lines SET planned_value = ... WHERE budget_month = ... AND direction = ... AND category = ... instead of inserting a second one.',
  budget_lines_first_of_month: () => "budget_month must be the first day of a month, e.g. DATE '2026-08-01'.",
  budget_lines_planned_value_positive: () =>
    'planned_value must be positive: the direction (income or spend) carries the sign.',
  budget_lines_category_check: () =>
    `category is required: 1 to 200 characters, not blank. ${RECIPES.budgetCategories}`,
  workspace_settings_pkey: () =>
    "The workspace already has its settings row: change it with UPDATE workspace_settings SET reporting_currency = 'EUR', timezone = 'Europe/Berlin' instead of INSERT.",
  workspace_settings_timezone_check: () =>
    'timezone must be an IANA time zone name such as Europe/Berlin, America/New_York or UTC.',
  workspace_settings_first_day_of_week_check: () => 'first_day_of_week is 1 (Monday) to 7 (Sunday).',
  account_metadata_pkey: () =>
    'This account_id already has a metadata row: change it with UPDATE account_metadata SET ... WHERE account_id = ...',
  ledger_entries_pkey: () => 'Leave entry_id out: it is generated for each row.',
  budget_lines_pkey: () => 'Leave line_id out: it is generated for each row.',
};

/** Text columns with a length rule (their CHECK constraints are named <relation>_<column>_check). */
const LENGTH_RULES: Record<string, string> = {
  event_id: '1 to 200 characters',
  account_id: '1 to 200 characters, not blank',
  category: '1 to 200 characters (use NULL for none)',
  counterparty: 'at most 500 characters',
  note: 'at most 2000 characters',
  external_id: '1 to 200 characters (use NULL for none)',
  display_name: '1 to 200 characters',
};

/** The hint for a named constraint of the seven relations, or undefined for one it does not know. */
export function constraintHint(constraint: string, facts: RefusalFacts = {}): string | undefined {
  const known = CONSTRAINT_HINTS[constraint];
  if (known) return known(facts);
  const length = /^(?:ledger_entries|budget_lines|account_metadata)_([a-z_]+)_check$/.exec(constraint);
  const rule = length ? LENGTH_RULES[length[1] as string] : undefined;
  return rule ? `${length?.[1]} must be ${rule}.` : undefined;
}

/** The hint for a row naming another workspace (row-level security). */
export const OTHER_WORKSPACE_HINT = `Leave workspace_id out of the statement: ${FILLED}`;

/** The hint for a value that does not parse as its column's type. */
export const VALUE_SYNTAX_HINT =
  "Write each value as its column's type: numbers without quotes or currency signs (-12.50), timestamps as TIMESTAMPTZ '2026-08-09 12:00:00+00', dates as DATE '2026-08-09'.";
