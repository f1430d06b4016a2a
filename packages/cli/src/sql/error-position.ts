import { splitStatements } from './statements.js';

/**
 * The 0-based offset in the submitted SQL that an error points at. Guard errors carry
 * `position: {offset, line, column}` over the whole text; database errors carry PostgreSQL's 1-based
 * character position within the statement that failed (`statementIndex` in a script).
 */
export function errorOffset(sql: string, details: Record<string, unknown> | undefined): number | undefined {
  if (!details) return undefined;
  const position = details.position;
  if (
    position &&
    typeof position === 'object' &&
    typeof (position as { offset?: unknown }).offset === 'number'
  ) {
    return (position as { offset: number }).offset;
  }
  const pgPosition =
    typeof position === 'number' ? position : typeof position === 'string' ? Number(position) : Number.NaN;
  if (!Number.isInteger(pgPosition) || pgPosition < 1) return undefined;
  const index = typeof details.statementIndex === 'number' ? details.statementIndex : 0;
  const statement = splitStatements(sql)[index];
  return (statement?.offset ?? 0) + pgPosition - 1;
}
