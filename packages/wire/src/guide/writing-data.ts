export const WRITING_DATA = `# Writing data

1. Read first: \`get_schema\` for the columns and hints, then \`query\` what is already there.
2. \`execute\` without \`confirmToken\` is a dry run: it runs, reports the per-statement effect, rolls back,
   and returns a \`confirmToken\`. Show the user the SQL and the effect; after they approve, call \`execute\`
   again with the SAME \`sql\` and the \`confirmToken\` (valid 10 minutes, once) to commit it atomically.
3. Probe, then batch: insert 1 to 3 rows first and read them back; then at most 100 rows per call.
4. Give every imported row an \`external_id\` (unique per workspace, e.g. the bank's transaction id or
   file+line): repeating an import then fails on the duplicate instead of doubling it; filter with
   \`WHERE NOT EXISTS\` or skip rows already present.
5. Amounts are signed: negative leaves the account (spend), positive enters it (income). \`currency\` is an
   upper-case ISO 4217 code. \`workspace_id\`, ids and timestamps of the row are filled for you.
6. A transfer is two rows with the same \`event_id\` and \`kind = 'transfer'\`, one per account, amounts
   of opposite sign, no category. A split purchase is several rows sharing an \`event_id\`.
7. Budgets: one \`budget_lines\` row per month (first day), direction (\`spend\`/\`income\`) and category,
   \`planned_value\` positive.
8. If a commit's outcome is unknown (\`mutation_outcome_unknown\`), query for the rows (by \`external_id\`)
   before anything else; retrying with the same \`confirmToken\` reuses its Idempotency-Key.
`;
