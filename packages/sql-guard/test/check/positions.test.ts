import { describe, expect, it } from 'vitest';
import { accepted, rejected, rejectedAt } from './helpers.js';

describe('positions (UTF-16 offset, 1-based line and column) with non-ASCII text', () => {
  it('converts the parser byte offsets of nodes', () => {
    rejectedAt("SELECT 'café', now()", 'function_not_allowed', 'now');
    rejectedAt("SELECT '日本語テキスト' AS t FROM pg_class", 'relation_not_allowed', 'pg_class');
    rejectedAt("SELECT '😀😀', lower('x')", 'function_not_allowed', 'lower');
  });

  it('converts scanner token offsets', () => {
    rejectedAt("SELECT 'café' -- c", 'comment_not_allowed', '--');
    rejectedAt('SELECT \'ü\', "x"', 'quoted_identifier_not_allowed', '"x"');
  });

  it('converts the parser error cursor', () => {
    const sql = "SELECT 'café', '😀' FROM FROM";
    const e = rejected(sql, 'syntax_error');
    expect(e.position?.offset).toBe(sql.lastIndexOf('FROM'));
  });

  it('counts lines and columns', () => {
    const sql = "SELECT amount\n  FROM ledger_entries\n WHERE note = 'naïve'\n   AND ts < now()";
    const e = rejectedAt(sql, 'function_not_allowed', 'now');
    expect(e.position).toMatchObject({ line: 4, column: 13 });
  });

  it('positions NUL bytes and unpaired surrogates', () => {
    const e = rejectedAt("SELECT 'é'\0; DROP TABLE x", 'syntax_error', '\0');
    expect(e.message).toContain('NUL');
    rejectedAt("SELECT '\ud800'", 'syntax_error', '\ud800');
  });

  it('positions statement-level violations at the statement in a script', () => {
    const sql = "SELECT 'ä';\nSELECT 'ö';\nVACUUM";
    const e = rejectedAt(sql, 'statement_not_allowed', 'VACUUM', 'script');
    expect(e.statementIndex).toBe(2);
  });

  it('reports statement locations in UTF-16 units after astral characters', () => {
    const sql = "SELECT '𝄞'; SELECT 2";
    const [, second] = accepted(sql, 'script');
    expect(second!.location).toEqual({ offset: sql.indexOf('SELECT 2'), length: 8 });
    rejected('SELECT 1; SELECT 2', 'multiple_statements_not_allowed');
  });
});
