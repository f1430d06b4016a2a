import { CALLS, type GuideTransport } from './transport.js';

export const SQL_DIALECT = (transport: GuideTransport): string => {
  const c = CALLS[transport];
  const statements =
    transport === 'http'
      ? `- ${c.query}: one SELECT (or WITH ... SELECT). ${c.execute}: one INSERT/UPDATE/DELETE. ${c.script}: several
  statements separated by semicolons, applied atomically.`
      : `- ${c.query}: one SELECT (or WITH ... SELECT). ${c.execute}: INSERT/UPDATE/DELETE, or a script of several
  statements separated by semicolons, applied atomically.`;
  return `# The SQL dialect

Every statement is checked by a PostgreSQL-parser-based guard before it runs, then runs under row-level
security in one workspace. What the guard refuses comes back with a \`code\`, a \`hint\` and a position.

- Relations: \`ledger_entries\`, \`budget_lines\`, \`workspace_settings\`, \`account_metadata\` (read and write);
  \`accounts\` (view), \`fx_rates_raw\`, \`fx_rates_daily\` (global, read only). Names are unqualified.
- Every column you name must exist in a relation, subquery, CTE or VALUES list in scope (${c.schema}).
- Functions: \`sum\`, \`count\`, \`min\`, \`max\`, \`avg\`, \`coalesce\` only. No \`NOW()\`, \`CURRENT_DATE\`,
  \`LOWER\`, \`EXTRACT\`, \`date_trunc\`: write explicit dates — results carry \`clock.today\`.
- SQL runs in the workspace's time zone (\`clock.timeZone\`, \`workspace_settings.timezone\`): a date or a
  \`TIMESTAMPTZ '2026-08-01 00:00:00'\` literal without offset is local midnight, \`ts::date\` is the local day, and
  timestamps come back in ISO 8601 with the local offset.
- Ranges on \`ts\` take \`TIMESTAMPTZ\` literals, never \`DATE\` ones: \`ts >= DATE '...'\` compares through a
  function PostgreSQL may not use for an index under row-level security, so it reads every entry of the workspace.
- Casts to ordinary scalar types only (\`ts::date\`, \`'12.50'::numeric\`, \`INTERVAL '1 month'\`).
- Case-insensitive match: \`ILIKE\`. Month buckets (local months, index-friendly):
  \`ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00'\`.
- Not allowed: comments, quoted identifiers, dollar quotes, \`E'...'\` strings, \`ON CONFLICT\`,
  \`FOR UPDATE\`, \`SELECT INTO\`, DDL, SET, transaction control.
${statements}
- Limits: 100 rows returned per statement (\`truncated\`, \`totalRowCount\` tell the rest), 100 rows affected
  per request, 25 s per request, 100 statements per script.
`;
};
