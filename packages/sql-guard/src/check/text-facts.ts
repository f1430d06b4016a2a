/**
 * What the checks before and around the parse need to know of the text, read in one pass: each of these used to
 * be its own loop over the text (and a long text paid four), which on long texts cost a tenth of a parse.
 */
export interface TextFacts {
  /** Whether every code unit is ASCII (then bytes, UTF-16 units and code points coincide). */
  readonly ascii: boolean;
  /**
   * Where a token a lexical rule rejects may begin (lexical.ts, mayHoldLexicalViolation), as ascending UTF-16
   * indexes: `"`, `$`, the first character of `--` and `/*`, and a `'` directly after `&` or after a prefix letter
   * (E, B, X, N) that does not end an identifier.
   */
  readonly triggers: number[];
  /** When `signRuns` was asked for: where the first run of more than MAX_SIGN_RUN `+`/`-` starts (see there), or -1. */
  readonly signRun: number;
}

/**
 * PostgreSQL's lexer strips trailing `+`/`-` from a multi-character operator and rescans the rest, so
 * a run of n such characters costs O(n²) (40,000 characters of `+-` take seconds, in the parse too).
 * Long inputs are therefore held to runs of at most MAX_SIGN_RUN outside string literals. When the text
 * holds anything that could hide a quote from a simple toggle (backslash, `$`, `"`, comments), every
 * run counts; such text is rejected by the lexical rules anyway unless its backslashes are data.
 */
export const MAX_SIGN_RUN = 100;

/**
 * Reads the facts in one pass. `signRuns` (long inputs only) also finds the first long run of signs: both the
 * first run anywhere and the first run outside a quote toggle are noted, and whether the text is "strict" (holds
 * `\`, `$`, `"`, `--` or `/*`) picks one at the end, as two passes would have (a run holds no quote, so it lies
 * wholly inside or outside the toggle).
 */
export function textFacts(sql: string, signRuns: boolean): TextFacts {
  const triggers: number[] = [];
  let high = 0;
  let strict = false;
  let inString = false;
  let run = 0;
  let anyRun = -1;
  let outsideRun = -1;
  const n = sql.length;
  for (let i = 0; i < n; i++) {
    const c = sql.charCodeAt(i);
    high |= c;
    if (c === 0x2b || c === 0x2d) {
      if (c === 0x2d && sql.charCodeAt(i + 1) === 0x2d) {
        triggers.push(i); // --
        strict = true;
      }
      if (signRuns && ++run > MAX_SIGN_RUN) {
        if (anyRun === -1) anyRun = i - run + 1;
        if (outsideRun === -1 && !inString) outsideRun = i - run + 1;
      }
      continue;
    }
    run = 0;
    if (c === 0x27) {
      inString = !inString;
      if (i > 0) {
        const p = sql.charCodeAt(i - 1);
        if (p === 0x26 || (isPrefixLetter(p) && (i < 2 || !isIdentChar(sql.charCodeAt(i - 2)))))
          triggers.push(i); // &' E' B' X' N'
      }
    } else if (c === 0x22 || c === 0x24) {
      triggers.push(i); // " $
      strict = true;
    } else if (c === 0x2f) {
      if (sql.charCodeAt(i + 1) === 0x2a) {
        triggers.push(i); // /*
        strict = true;
      }
    } else if (c === 0x5c) strict = true;
  }
  return { ascii: high < 0x80, triggers, signRun: strict ? anyRun : outsideRun };
}

export function isPrefixLetter(c: number): boolean {
  const l = c | 0x20;
  return l === 0x65 || l === 0x62 || l === 0x78 || l === 0x6e; // e b x n
}

export function isIdentChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x5f ||
    c === 0x24 ||
    c >= 0x80
  );
}
