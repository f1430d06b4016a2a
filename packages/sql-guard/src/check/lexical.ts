import { scanSync } from 'libpg-query';
import { textFacts } from './text-facts.js';
import { Violation } from './violation.js';

/** A scanner token as libpg-query reports it (byte offsets). */
export interface Token {
  start: number;
  end: number;
  text: string;
  tokenName: string;
}

/**
 * Scans with PostgreSQL's own lexer. Returns undefined when the lexer itself fails (trailing junk
 * after a number, unterminated literal ...): the parse fails on the same text and reports it.
 */
export function scan(sql: string): Token[] | undefined {
  try {
    return scanSync(sql).tokens;
  } catch {
    return undefined;
  }
}

/**
 * Whether the text may hold a token that a lexical rule rejects. A sound pre-filter, not a decision:
 * it returns false only when none of the characters such a token must begin with occur, and then
 * scanning (which costs about 2.5 parses) is skipped. The tokens it looks for:
 * - comments begin with `--` or `/*`; quoted identifiers (also U&"x") contain `"`;
 *   dollar-quoted strings begin with `$`;
 * - E'', B'', X'', N'' begin with a letter directly followed by a quote, the letter being the
 *   token's first character: the character before it is not an identifier character, because an
 *   identifier or keyword would have swallowed the letter and a number followed by a letter is a
 *   lexer error ("trailing junk after numeric literal") that fails the parse first;
 * - U&'' contains `&'`.
 * The places are found by textFacts (text-facts.ts), which check reads once for all its pre-scans.
 */
export function mayHoldLexicalViolation(sql: string): boolean {
  return textFacts(sql, false).triggers.length > 0;
}

const STANDARD_CONFORMING_HINT =
  "use an ordinary single-quoted literal ('...'; double a quote inside it: 'it''s'); the server runs with standard_conforming_strings = on, so backslashes are ordinary characters";

/** The first lexical violation among the tokens, if any. */
export function lexicalViolation(tokens: Token[]): Violation | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const v = tokenViolation(t, tokens[i + 1]);
    if (v) return v;
  }
  return undefined;
}

function tokenViolation(t: Token, next: Token | undefined): Violation | undefined {
  const { tokenName, text } = t;
  if (tokenName === 'SQL_COMMENT' || tokenName === 'C_COMMENT') {
    return new Violation(
      'comment_not_allowed',
      `SQL comments are not allowed (${text.startsWith('--') ? '--' : '/* */'} comment).`,
      'remove the comment; explain the statement outside the SQL text',
      t.start,
    );
  }
  const c0 = text.charCodeAt(0);
  const c1 = text.charCodeAt(1);
  if (c0 === 0x22 || ((c0 | 0x20) === 0x75 && c1 === 0x26 && text.charCodeAt(2) === 0x22)) {
    return new Violation(
      'quoted_identifier_not_allowed',
      `Quoted identifiers are not allowed (${abbreviate(text)}).`,
      'write the name unquoted in lower case (e.g. amount, not "Amount")',
      t.start,
    );
  }
  if (tokenName === 'SCONST' && c0 === 0x24) {
    return new Violation(
      'dollar_quoted_string_not_allowed',
      `Dollar-quoted strings are not allowed (${abbreviate(text)}).`,
      STANDARD_CONFORMING_HINT,
      t.start,
    );
  }
  if (c1 === 0x27 || ((c0 | 0x20) === 0x75 && c1 === 0x26 && text.charCodeAt(2) === 0x27)) {
    const kind = nonstandardKind(c0);
    if (kind) {
      return new Violation(
        'nonstandard_string_literal_not_allowed',
        `${kind} string literals are not allowed (${abbreviate(text)}).`,
        STANDARD_CONFORMING_HINT,
        t.start,
      );
    }
  }
  // N'...' is scanned as the keyword NCHAR spelled "N" directly followed by a string.
  if (
    text.length === 1 &&
    (c0 | 0x20) === 0x6e &&
    next &&
    next.start === t.end &&
    next.text.startsWith("'")
  ) {
    return new Violation(
      'nonstandard_string_literal_not_allowed',
      `National character string literals are not allowed (N${abbreviate(next.text)}).`,
      STANDARD_CONFORMING_HINT,
      t.start,
    );
  }
  return undefined;
}

function nonstandardKind(c0: number): string | undefined {
  switch (c0 | 0x20) {
    case 0x65:
      return "Escape (E'...')";
    case 0x75:
      return "Unicode escape (U&'...')";
    case 0x62:
      return "Bit-string (B'...')";
    case 0x78:
      return "Hexadecimal bit-string (X'...')";
    default:
      return undefined;
  }
}

function abbreviate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * libpg-query prints the parse tree with recursive C code in WebAssembly; a tree thousands of levels
 * deep overflows the stack, and repeated overflows corrupt the module. The tree can only be as deep
 * as the statement has tokens that open a level, so inputs that could be deep (longer than
 * SHORT_INPUT characters) are scanned first and each statement is held to a budget of such tokens
 * (everything except names, constants, commas and closing brackets). The scan is skipped where a cheap
 * upper bound of the count already proves every statement within the budget (structural-bound.ts).
 */
export const SHORT_INPUT = 2000;
export const MAX_STRUCTURAL_TOKENS = 1000;

const LEAF_TOKENS = new Set(['IDENT', 'SCONST', 'ICONST', 'FCONST']);
const LEAF_TEXT = new Set([',', ')', ']', 'null', 'true', 'false', 'default']);

export function complexityViolation(
  tokens: Token[],
  budget: number = MAX_STRUCTURAL_TOKENS,
): Violation | undefined {
  let count = 0;
  for (const t of tokens) {
    if (t.text === ';') {
      count = 0;
      continue;
    }
    if (LEAF_TOKENS.has(t.tokenName) || LEAF_TEXT.has(t.text.toLowerCase())) continue;
    if (++count > budget) {
      return new Violation(
        'construct_not_allowed',
        `The statement is too complex: more than ${budget} operators, keywords and brackets.`,
        'split the work into several smaller statements',
        t.start,
      );
    }
  }
  return undefined;
}

/**
 * Whether every place where `mayHoldLexicalViolation` saw a possible violation (`triggers`, text-facts.ts) lies
 * inside an ordinary string literal, so that scanning can be skipped: `literalStarts` are the UTF-16 indexes where the
 * parse tree's string constants begin (A_Const locations), ascending. A constant whose first character is
 * not `'` (E'', B'', X'', U&'', a dollar quote) explains nothing, so its text is scanned. An ordinary
 * literal ends at the first `'` not doubled (standard_conforming_strings is on, which `run` checks); a
 * literal continued on a new line is cut at its first part, so what follows is scanned. The answer is a
 * decision about the parser's own token positions, never a reading of the text as SQL: it only ever says
 * "skip the scanner" when the parser put a plain string literal around each suspicious character.
 */
export function literalsExplainTriggers(
  sql: string,
  literalStarts: readonly number[],
  triggers: readonly number[] = textFacts(sql, false).triggers,
): boolean {
  // Extents [start, end] of the plain literals, end being the closing quote.
  const extents: number[] = [];
  let from = -1;
  for (const start of literalStarts) {
    if (start <= from || sql.charCodeAt(start) !== 0x27) continue;
    let i = start + 1;
    for (;;) {
      const q = sql.indexOf("'", i);
      if (q === -1) return false;
      if (sql.charCodeAt(q + 1) === 0x27) {
        i = q + 2;
        continue;
      }
      extents.push(start, q);
      from = q;
      break;
    }
  }
  // Triggers come in text order and the extents are ordered and disjoint: one pointer suffices.
  let k = 0;
  const inside = (first: number, last: number, closingQuote: boolean): boolean => {
    while (k < extents.length && extents[k + 1]! < first) k += 2;
    if (k >= extents.length || extents[k]! >= first) return false;
    const end = extents[k + 1]!;
    return last < end || (closingQuote && last === end);
  };
  for (const i of triggers) {
    const c = sql.charCodeAt(i);
    if (c === 0x22 || c === 0x24) {
      if (!inside(i, i, false)) return false;
    } else if (c === 0x27) {
      // A quote after a prefix is harmless only inside a literal (its closing quote included).
      if (!inside(i, i, true)) return false;
    } else if (!inside(i, i + 1, false)) return false; // -- or /*
  }
  return true;
}
