import { describe, expect, it } from 'vitest';
import { mayHoldLexicalViolation } from '../../src/check/lexical.js';
import { accepted, rejected, rejectedAt } from './helpers.js';

describe('lexical rules (decided on scanner tokens)', () => {
  it('rejects comments of both kinds, nested ones too, at the comment', () => {
    rejectedAt('SELECT 1 -- trailing', 'comment_not_allowed', '--');
    rejectedAt('SELECT /* a */ 1', 'comment_not_allowed', '/*');
    rejectedAt('SELECT 1 /* a /* nested */ b */', 'comment_not_allowed', '/*');
    rejectedAt('SELECT amount\nFROM ledger_entries --x', 'comment_not_allowed', '--');
    rejected('-- only a comment', 'comment_not_allowed');
  });

  it('rejects quoted identifiers, U& ones too', () => {
    rejectedAt('SELECT "amount" FROM ledger_entries', 'quoted_identifier_not_allowed', '"amount"');
    rejectedAt('SELECT amount FROM "ledger_entries"', 'quoted_identifier_not_allowed', '"ledger_entries"');
    rejectedAt('SELECT U&"\\0061mount" FROM ledger_entries', 'quoted_identifier_not_allowed', 'U&');
    rejectedAt('SELECT u&"x" FROM ledger_entries', 'quoted_identifier_not_allowed', 'u&');
  });

  it('rejects dollar-quoted strings', () => {
    rejectedAt('SELECT $$x$$', 'dollar_quoted_string_not_allowed', '$$');
    rejectedAt("SELECT 1 WHERE 'a' = $tag$a$tag$", 'dollar_quoted_string_not_allowed', '$tag$');
  });

  it('rejects E, U&, B, X and N string literals', () => {
    rejectedAt("SELECT E'\\x41'", 'nonstandard_string_literal_not_allowed', "E'");
    rejectedAt("SELECT e'a'", 'nonstandard_string_literal_not_allowed', "e'");
    rejectedAt("SELECT U&'d\\0061t'", 'nonstandard_string_literal_not_allowed', 'U&');
    rejectedAt("SELECT B'101'", 'nonstandard_string_literal_not_allowed', "B'");
    rejectedAt("SELECT X'ff'", 'nonstandard_string_literal_not_allowed', "X'");
    rejectedAt("SELECT N'abc'", 'nonstandard_string_literal_not_allowed', "N'");
    rejectedAt("SELECT 1 WHERE 'a'=n'a'", 'nonstandard_string_literal_not_allowed', "n'");
  });

  it("treats a string's content as data", () => {
    accepted(`SELECT 'a -- b; /* c */ $$ "d"'`);
    accepted("SELECT note FROM ledger_entries WHERE note = 'it''s E''x'' and N''y'''");
    accepted("SELECT 'coffee', 'train', 'x', 'n', 'B', 'U&'");
    accepted("SELECT 'a\\nb'");
  });

  it('accepts identifiers and keywords that end in a prefix letter before a string', () => {
    accepted("SELECT note FROM ledger_entries WHERE note LIKE 'x%'");
    accepted("SELECT DATE '2026-08-09', INTERVAL '1 day', TIMESTAMPTZ '2026-08-09 10:00:00+02'");
  });

  it('a number directly followed by a prefix letter is a lexer error, never a literal', () => {
    for (const sql of [
      "SELECT 1e'x'",
      "SELECT 1.5E'x'",
      "SELECT 0b1B'x'",
      "SELECT 1n'x'",
      "SELECT 1_0x'x'",
    ]) {
      rejected(sql, 'syntax_error');
    }
  });

  it('the pre-filter never skips a text that holds a rejected token', () => {
    for (const sql of [
      "SELECT E'a'",
      "SELECT (E'a')",
      "SELECT 1,B'1'",
      "SELECT U&'a'",
      'SELECT "a"',
      'SELECT $$a$$',
      'SELECT 1 --',
      'SELECT /**/1',
      "SELECT N'a'",
      "SELECT 'a'||x'ff'",
    ]) {
      expect(mayHoldLexicalViolation(sql), sql).toBe(true);
    }
    expect(mayHoldLexicalViolation("SELECT 'coffee', amount - 1 FROM ledger_entries WHERE a / 2 > 1")).toBe(
      false,
    );
  });
});
