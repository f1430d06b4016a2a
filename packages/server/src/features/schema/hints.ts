import { SCHEMA_RULE_WORDS } from '@expense/wire';
import { RECIPES } from '../../platform/storage/relation-hints.js';

/**
 * The dialect's rules in short sentences for an agent (the guard enforces them); those naming routes are the
 * catalogue's (SCHEMA_RULE_WORDS), which words them for the MCP tools too.
 */
export const SQL_RULES = [
  'Allowed statements: SELECT, WITH ... SELECT, INSERT, UPDATE, DELETE; only the relations listed here.',
  SCHEMA_RULE_WORDS.modes.http,
  'Allowed functions: SUM, COUNT, MIN, MAX, AVG, COALESCE; every other function call is blocked (also NOW, LOWER, DATE_TRUNC).',
  'Not supported: ON CONFLICT, SQL comments, quoted identifiers, dollar-quoted strings, DDL, transaction control.',
  "Use ILIKE for case-insensitive text search and explicit ranges for dates: on ts, TIMESTAMPTZ literals (ts >= TIMESTAMPTZ '2026-08-01 00:00:00' AND ts < TIMESTAMPTZ '2026-09-01 00:00:00'), which the (workspace_id, ts) index can use; DATE bounds on ts it cannot use under row-level security.",
  SCHEMA_RULE_WORDS.clock.http,
  "SQL runs in the workspace's time zone (data.clock.timeZone, workspace_settings.timezone): a TIMESTAMPTZ literal without offset (TIMESTAMPTZ '2026-12-01 00:00:00') is local midnight, ts::date is the local day, and timestamps come back in ISO 8601 with the local offset.",
  RECIPES.numericStrings,
  'Before a long write, probe with 1 to 3 rows; then send at most 100 rows per call, in sequence.',
  SCHEMA_RULE_WORDS.approval.http,
  SCHEMA_RULE_WORDS.history.http,
];

/** Which zone SQL runs in, for the workspace whose clock is shown. */
export const sqlTimeZoneSentence = (timeZone: string): string =>
  `SQL runs in ${timeZone}: TIMESTAMPTZ '2026-12-01 00:00:00' means midnight in ${timeZone}, and ts::date is the day in ${timeZone}.`;
