/** Names the migrations create and the transactions rely on. Changing one needs a new migration. */

/** NOLOGIN role every user-SQL transaction runs as (SET LOCAL ROLE). */
export const SQL_ROLE = 'expense_sql';
/** NOLOGIN role of the FX worker: the only writer of fx_rates_raw and fx_rates_daily. */
export const FX_ROLE = 'expense_fx';
/** Schema of the server's own tables; the restricted roles have no USAGE on it. */
export const INTERNAL_SCHEMA = 'expense_internal';
/** Transaction-local setting holding the acting user's id (read by row-level security). */
export const USER_ID_SETTING = 'expense.user_id';
/** Transaction-local setting holding the request's workspace id (read by RLS and column defaults). */
export const WORKSPACE_ID_SETTING = 'expense.workspace_id';
/** Channel on which migration 0007 announces a revoked or deleted key (payload: its connection id). */
export const KEY_REVOKED_CHANNEL = 'expense_key_revoked';
/** Advisory-lock key serialising migrations across processes ("expense" in ASCII, as a bigint). */
export const MIGRATION_LOCK_KEY = '111542863785829';

/** The relations user SQL can reach, in the order /schema lists them. */
export const USER_RELATIONS = [
  'ledger_entries',
  'budget_lines',
  'workspace_settings',
  'account_metadata',
  'accounts',
  'fx_rates_raw',
  'fx_rates_daily',
] as const;
export type UserRelationName = (typeof USER_RELATIONS)[number];

export const GLOBAL_RELATIONS: ReadonlySet<string> = new Set(['fx_rates_raw', 'fx_rates_daily']);
