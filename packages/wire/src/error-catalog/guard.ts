import type { GuardErrorCode } from '@expense/sql-guard/codes';
import type { ErrorEntry, ErrorVariant } from './types.js';

/**
 * The texts the SQL routes' refusals are built from (the guard's `DialectHints`, naming this API's routes): the
 * server's dialect gives them to the guard, and a refusal made of them names its variant of GUARD_ERRORS, whose
 * texts word it for every audience.
 */
export const DIALECT_WORDS = {
  modes: { query: '/sql/query', execute: '/sql/execute', script: '/sql' },
  read: 'send reads (SELECT) to /sql/query',
  write: 'send one INSERT, UPDATE or DELETE to /sql/execute',
  mixed: 'send statements that read and write in one WITH to /sql (script mode)',
  oneStatement:
    'send one statement per request, or send the statements together to /sql (script mode), which runs them atomically',
} as const;

/** Every guard code (`guard.md`: SQL refused before it reaches the database) shares one entry. */
export const GUARD_ERROR = {
  status: 400,
  message: 'The SQL is outside the dialect; nothing was run.',
  hint: 'Rewrite the SQL within the dialect (GET /schema lists relations, functions and rules); nothing was run.',
  mcpHint:
    'Rewrite the SQL within the dialect (get_guide sql-dialect and get_schema list the rules); nothing was run.',
  cliHint:
    'Rewrite the SQL within the dialect (`expense schema` lists relations, functions and rules); nothing was run.',
  consoleHint: 'Rewrite the SQL within the dialect; nothing was run.',
  retryable: false,
  actions: ['get_schema'],
  mcpNext: 'Fix the SQL as the hint says (get_guide topic sql-dialect lists the rules) and call again.',
} as const satisfies ErrorEntry;

/** How the SQL refusals name each SQL mode and next step, in every audience's words. */
const MODE_WORDS = {
  query: {
    http: DIALECT_WORDS.modes.query,
    mcp: 'the query tool',
    cli: '`expense query`',
    console: '“Run query”',
  },
  execute: {
    http: DIALECT_WORDS.modes.execute,
    mcp: 'the execute tool',
    cli: '`expense exec`',
    console: '“Dry run write”',
  },
} as const;
const NEXT_WORDS = {
  read: {
    http: DIALECT_WORDS.read,
    mcp: 'send reads (SELECT) to the query tool',
    cli: 'run reads with `expense query`',
    console: 'Use “Run query” to read data',
  },
  write: {
    http: DIALECT_WORDS.write,
    mcp: 'send one INSERT, UPDATE or DELETE to the execute tool',
    cli: 'run one INSERT, UPDATE or DELETE with `expense exec`',
    console: 'Use “Dry run write” for a statement that changes data',
  },
  mixed: {
    http: DIALECT_WORDS.mixed,
    mcp: 'send a statement that reads and writes in one WITH to the execute tool',
    cli: 'run statements that read and write in one WITH with `expense sql`',
    console: 'Write the change as one statement',
  },
  oneStatement: {
    http: DIALECT_WORDS.oneStatement,
    mcp: 'send one statement per call, or send the statements together to the execute tool, which runs them atomically',
    cli: 'run one statement at a time, or the statements together with `expense sql -f <file>`, which runs them atomically',
    console: 'Run one statement at a time',
  },
} as const;

/** A refusal of the SQL routes: its message names the mode (`said`), its hint the next step, in each audience's words. */
function modeRefusal(
  mode: keyof typeof MODE_WORDS,
  said: string,
  next: keyof typeof NEXT_WORDS,
): ErrorVariant {
  const words = MODE_WORDS[mode];
  const hints = NEXT_WORDS[next];
  return {
    message: `${words.http}${said}`,
    mcpMessage: `${words.mcp}${said}`,
    cliMessage: `${words.cli}${said}`,
    consoleMessage: `${words.console}${said}`,
    hint: hints.http,
    mcpHint: hints.mcp,
    cliHint: hints.cli,
    consoleHint: hints.console,
  };
}

/** Guard codes with an entry of their own; every other guard code shares GUARD_ERROR. */
export const GUARD_ERRORS = {
  // The server's dialect (DIALECT_WORDS) names the routes; the guard names the variant and its facts (kind, count).
  statement_kind_mismatch: {
    ...GUARD_ERROR,
    variants: {
      query_write: modeRefusal('query', ' takes a read; this is {{kind}}.', 'write'),
      execute_read: modeRefusal('execute', ' takes INSERT, UPDATE or DELETE; this is SELECT.', 'read'),
      execute_mixed: modeRefusal('execute', ' takes INSERT, UPDATE or DELETE; this is SELECT.', 'mixed'),
      query_writes_in_with: modeRefusal(
        'query',
        ' takes a read-only SELECT; this one writes in its WITH clause.',
        'mixed',
      ),
      query_not_read_only: modeRefusal('query', ' takes a read-only SELECT.', 'mixed'),
    },
  },
  multiple_statements_not_allowed: {
    ...GUARD_ERROR,
    variants: {
      query: modeRefusal('query', ' takes exactly one statement; this SQL holds {{count}}.', 'oneStatement'),
      execute: modeRefusal(
        'execute',
        ' takes exactly one statement; this SQL holds {{count}}.',
        'oneStatement',
      ),
    },
  },
  statement_too_complex: {
    status: 400,
    message:
      'The statement expands to too large a tree once PostgreSQL inlines its subqueries; nothing was run.',
    hint: 'Reference each column of a subquery or CTE once, or compute it once in a WITH item declared AS MATERIALIZED; nothing was run.',
    retryable: false,
    actions: ['get_schema'],
    mcpNext:
      'Rewrite the statement as the hint says (reference the repeated column once, or use WITH ... AS MATERIALIZED) and call again.',
  },
} as const satisfies Partial<Record<GuardErrorCode, ErrorEntry>>;
