import type { Audience } from './types.js';

/**
 * A text that is no error's but names something of one audience (a route, a tool): its HTTP words, and each other
 * audience's where they differ (absent: the HTTP text, which then names nothing foreign to that audience).
 */
export type AudienceText = { readonly http: string } & { readonly [A in Exclude<Audience, 'http'>]?: string };

/**
 * The rules of GET /schema that name the API's routes or speak to an agent about its user (the server's `SQL_RULES`
 * sends their HTTP words), in every audience's words: an agent on MCP reads them naming the tools, a person on the
 * command line or the console reads what asks them (`rulesFor`).
 */
export const SCHEMA_RULE_WORDS = {
  modes: {
    http: 'POST /sql/query takes exactly one read-only statement; POST /sql/execute exactly one INSERT, UPDATE or DELETE; POST /sql one or more, applied atomically.',
    mcp: 'The query tool takes exactly one read-only statement; the execute tool exactly one INSERT, UPDATE or DELETE, or several, applied atomically.',
    cli: '`expense query` takes exactly one read-only statement; `expense exec` exactly one INSERT, UPDATE or DELETE; `expense sql -f <file>` one or more, applied atomically.',
    console:
      '“Run query” takes exactly one read-only statement; “Dry run write” one INSERT, UPDATE or DELETE, or several, applied atomically.',
  },
  clock: {
    http: "There is no NOW() or CURRENT_DATE: every SQL result (and GET /schema, GET /me) carries data.clock {now, today, timeZone}, today being the date in the workspace's time zone; write dates as literals and ranges from it, ts ranges as TIMESTAMPTZ literals (ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00', local midnights), which an index can use where DATE bounds cannot.",
    mcp: "There is no NOW() or CURRENT_DATE: every SQL result (and get_schema) carries data.clock {now, today, timeZone}, today being the date in the workspace's time zone; write dates as literals and ranges from it, ts ranges as TIMESTAMPTZ literals (ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00', local midnights), which an index can use where DATE bounds cannot.",
    console:
      "There is no NOW() or CURRENT_DATE: write dates as literals in the workspace's time zone, ts ranges as TIMESTAMPTZ literals (ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00', local midnights), which an index can use where DATE bounds cannot.",
    cli: "There is no NOW() or CURRENT_DATE: every SQL result (and `expense schema`, `expense whoami`) carries data.clock {now, today, timeZone}, today being the date in the workspace's time zone; write dates as literals and ranges from it, ts ranges as TIMESTAMPTZ literals (ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00', local midnights), which an index can use where DATE bounds cannot.",
  },
  approval: {
    http: "Get the user's approval before any write; the approval covers the probe and all later batches of that change.",
    cli: '`expense exec` and `expense sql` make a dry run of a write and ask for your approval before committing it (--yes approves without asking).',
    console: '“Dry run write” shows what a write would change; nothing is saved until you confirm it.',
  },
  history: {
    http: 'Every committed write is recorded: GET /changes lists them (SQL, who, rows) so you can tell the user what you changed; POST /changes/{changeId}/revert undoes one (dry run first).',
    mcp: 'Every committed write is recorded: the history tool lists them (SQL, who, rows) so you can tell the user what you changed; the revert tool undoes one (dry run first).',
    cli: 'Every committed write is recorded: `expense history` lists them (SQL, who, rows); `expense revert <changeId>` undoes one (dry run first).',
    console:
      'Every committed write is recorded: the Activity page lists them (SQL, who, rows), and Revert there undoes one (dry run first).',
  },
} as const satisfies Record<string, AudienceText>;

/**
 * The balanced-transfer rule (ledger_entries_transfer_balanced), in each audience's words: how to send both legs
 * at once names a route, a tool, a command or the console's SQL page.
 */
const TRANSFER_EXCHANGE =
  'A currency exchange is two transfers through an exchange account under one event_id: -100 EUR from eur-checking and +100 EUR to fx-exchange, -108 USD from fx-exchange and +108 USD to usd-checking.';
export const TRANSFER_RULE = {
  http: `The transfer rows of one event_id must sum to 0 per currency when the request commits: send both legs in one request (one INSERT with two VALUES rows, or a /sql script); a one-legged transfer is refused, in a dry run too. ${TRANSFER_EXCHANGE}`,
  mcp: `The transfer rows of one event_id must sum to 0 per currency when the request commits: send both legs in one call (one INSERT with two VALUES rows, or the execute tool with several statements); a one-legged transfer is refused, in a dry run too. ${TRANSFER_EXCHANGE}`,
  cli: `The transfer rows of one event_id must sum to 0 per currency when the request commits: send both legs at once (one INSERT with two VALUES rows, or \`expense sql -f <file>\` with several statements); a one-legged transfer is refused, in a dry run too. ${TRANSFER_EXCHANGE}`,
  console: `The transfer rows of one event_id must sum to 0 per currency when the request commits: write both legs in one “Dry run write” on the SQL page (one INSERT with two VALUES rows, or several statements at once); a one-legged transfer is refused, in a dry run too. ${TRANSFER_EXCHANGE}`,
} as const satisfies AudienceText;

/** Every text of GET /schema that has other audiences' words, known by its HTTP text as a whole. */
const TEXT_BY_HTTP: ReadonlyMap<string, AudienceText> = new Map(
  [...Object.values(SCHEMA_RULE_WORDS), TRANSFER_RULE].map((text) => [text.http, text]),
);

/**
 * Texts GET /schema answered (its rules, a relation's hints), in one audience's words: a text of SCHEMA_RULE_WORDS
 * or TRANSFER_RULE (known by its HTTP text as a whole) in that audience's, every other text (the workspace's time
 * zone, a column's meaning) as answered.
 */
export function rulesFor(rules: readonly string[], audience: Audience): string[] {
  return rules.map((rule) => {
    const known = TEXT_BY_HTTP.get(rule);
    return known === undefined ? rule : (known[audience] ?? known.http);
  });
}
