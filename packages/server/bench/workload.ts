/** The benchmark's read: the latest 20 entries of the workspace (row-level security picks the workspace). */
export const QUERY_SQL =
  'SELECT entry_id, ts, account_id, amount, currency, kind, category FROM ledger_entries ORDER BY ts DESC LIMIT 20';

/** The same read for the floor, which has no row-level security context: the workspace is a parameter. */
export const FLOOR_SQL =
  'SELECT entry_id, ts, account_id, amount, currency, kind, category FROM ledger_entries WHERE workspace_id = $1 ORDER BY ts DESC LIMIT 20';
