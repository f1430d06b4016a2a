// What every catalog read builds on: a client that runs one text, and quoting.

/** Anything that runs one SQL text and answers its rows: pg's Client and Pool, PGlite, a SqlSession. */
export interface CatalogClient {
  query(text: string): Promise<{ rows: readonly unknown[] }>;
}

/** A SQL string literal (standard_conforming_strings on). */
export const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;
/** A quoted identifier. */
export const identifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;
