/**
 * SQL literals the CLI builds itself. The server runs with standard_conforming_strings=on and the dialect
 * accepts only ordinary '...' literals, so the one character that needs escaping is the single quote,
 * which is doubled; a backslash is an ordinary character. PostgreSQL text cannot hold NUL, so a value with
 * one is refused here rather than sent.
 */
export function quoteLiteral(value: string): string {
  if (value.includes('\u0000')) throw new RangeError('a SQL text value cannot contain the NUL character');
  return `'${value.replaceAll("'", "''")}'`;
}

/** The types the import casts to; all are on the dialect's cast list. */
export type LiteralType = 'text' | 'numeric' | 'timestamptz' | 'date';
