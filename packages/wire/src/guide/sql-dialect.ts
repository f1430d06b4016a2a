export const SQL_DIALECT = `# The SQL dialect

Every statement is checked by a PostgreSQL-parser-based guard before it runs, then runs under row-level
security in one workspace. What the guard refuses comes back with a \`code\`, a \`hint\` and a position.

- Relations: \`ledger_entries\`, \`budget_lines\`, \`workspace_settings\`, \`account_metadata\` (read and write);
  \`accounts\` (view), \`fx_rates_raw\`, \`fx_rates_daily\` (global, read only). Names are unqualified.
- Every column you name must exist in a relation, subquery, CTE or VALUES list in scope (\`get_schema\`).
- Functions: \`sum\`, \`count\`, \`min\`, \`max\`, \`avg\`, \`coalesce\` only. No \`NOW()\`, \`CURRENT_DATE\`,
  \`LOWER\`, \`EXTRACT\`, \`date_trunc\`: write explicit dates (\`DATE '2026-08-01'\`) — results carry
  \`clock.today\` where the server provides it.
- Casts to ordinary scalar types only (\`ts::date\`, \`'12.50'::numeric\`, \`INTERVAL '1 month'\`).
- Case-insensitive match: \`ILIKE\`. Month buckets: \`ts >= DATE '2026-08-01' AND ts < DATE '2026-09-01'\`.
- Not allowed: comments, quoted identifiers, dollar quotes, \`E'...'\` strings, \`ON CONFLICT\`,
  \`FOR UPDATE\`, \`SELECT INTO\`, DDL, SET, transaction control.
- \`query\`: one SELECT (or WITH ... SELECT). \`execute\`: INSERT/UPDATE/DELETE, or a script of several
  statements separated by semicolons, applied atomically.
- Limits: 100 rows returned per statement (\`truncated\`, \`totalRowCount\` tell the rest), 100 rows affected
  per request, 25 s per request, 100 statements per script.
`;
