import { CALLS, type GuideTransport } from './transport.js';

/** How a write is tried, approved and committed: one flow per transport. */
const FLOW: Record<GuideTransport, string> = {
  http: `2. Dry run first: send the write to \`POST /sql/execute\` (one statement) or \`POST /sql\` (a script, atomic)
   with \`"dryRun": true\`. It runs, reports the per-statement effect (\`committed: false\`) and rolls back. Without
   \`dryRun\` the request COMMITS AT ONCE. Show the user the SQL and the effect; after they approve, send the
   same request without \`dryRun\`, with an \`Idempotency-Key\` header (a fresh UUID per change): a retry with the
   same key and body replays the kept answer instead of writing twice. The answer carries \`data.changeId\` and
   \`data.shortId\`: name the change to the user by the short id, the one the console and the CLI show.
   A dry run that would change every row of a relation, or more than half of them, says so in
   \`data.warnings\` and its first instruction: tell the user before committing.`,
  mcp: `2. \`execute\` without \`confirmToken\` is a dry run: it runs, reports the per-statement effect, rolls back,
   and returns a \`confirmToken\`. Show the user the SQL and the effect; after they approve, call \`execute\`
   again with the SAME \`sql\` and the \`confirmToken\` (valid 10 minutes, once) to commit it atomically. The
   result carries \`changeId\` and \`shortId\` (name the change to the user by the short id). A dry run that
   would change every row of a relation, or more than half of them, says so in a note: tell the user before
   committing.`,
};

const OUTCOME_UNKNOWN: Record<GuideTransport, string> = {
  http: 'retrying with the same `Idempotency-Key` and body replays the answer if the write committed, and runs it once if not',
  mcp: 'retrying with the same `confirmToken` reuses its Idempotency-Key',
};

export const WRITING_DATA = (transport: GuideTransport): string => {
  const c = CALLS[transport];
  return `# Writing data

1. Read first: ${c.schema} for the columns and hints, then ${c.query} what is already there.
${FLOW[transport]}
3. Probe, then batch: insert 1 to 3 rows first and read them back; then at most 100 rows per call.
4. Give every imported row an \`external_id\` (unique per workspace, e.g. the bank's transaction id or
   file+line): repeating an import then fails on the duplicate instead of doubling it; filter with
   \`WHERE NOT EXISTS\` or skip rows already present.
5. Amounts are signed: negative leaves the account (spend), positive enters it (income); a refund is a
   positive \`spend\` row in the purchase's category. \`currency\` is an upper-case ISO 4217 code.
   \`workspace_id\`, ids and timestamps of the row are filled for you. \`ts\` without an offset is local time.
6. A transfer is two rows with the same \`event_id\` and \`kind = 'transfer'\`, one per account, amounts
   of opposite sign, no category (a credit card payment is a transfer). A split purchase is several rows
   sharing an \`event_id\`.
7. Budgets: one \`budget_lines\` row per month (first day), direction (\`spend\`/\`income\`) and category,
   \`planned_value\` positive.
8. Every commit is a change: ${c.history} lists them, ${c.revert} undoes one (dry run first).
9. If a commit's outcome is unknown (\`mutation_outcome_unknown\`), query for the rows (by \`external_id\`)
   before anything else; ${OUTCOME_UNKNOWN[transport]}.
`;
};
