/**
 * A cheap upper bound of `complexityViolation`'s count (lexical.ts), so that a long text pays PostgreSQL's
 * scanner (about 2.5 parses) only when its structural tokens could pass the budget in one statement. It never
 * decides to accept anything: it answers false ("within the budget") only when every statement's count is
 * provably within it, and true ("maybe over: scan") otherwise. Outside string literals it counts one wherever
 * a structural token may begin, so its count is at least the exact one:
 *
 * - a run of identifier characters (a keyword, a name, the prefix of B'', X'', E'', U&'') counts one;
 *   PostgreSQL lexes such a run as one token;
 * - a number counts nothing (ICONST and FCONST are leaves); letters glued to it count one;
 * - `,` `)` `]` and whitespace count nothing; every other character counts one (operators, `(`, `[`, `.`, `::`,
 *   `$1`), so a multi-character operator counts more than once;
 * - an ordinary string literal counts nothing (it ends at the first quote that is not doubled, as with
 *   standard_conforming_strings on) and `;` ends a statement;
 * - whatever could make a quote mean something else gives up (true): a backslash anywhere (in E'...' and its
 *   continuations on later lines it escapes a quote), outside a literal `"`, `--`, `/*`, `$$` or `$tag`, and a
 *   literal that is not closed.
 */
export function exceedsStructuralBudget(sql: string, budget: number): boolean {
  if (sql.indexOf('\\') !== -1) return true;
  let count = 0;
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x2c || c === 0x29 || c === 0x5d) {
      i++;
    } else if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentCont(sql.charCodeAt(i))) i++;
      if (++count > budget) return true;
    } else if (isDigit(c)) {
      i = skipNumber(sql, i);
      if (i < n && isIdentCont(sql.charCodeAt(i))) {
        while (i < n && isIdentCont(sql.charCodeAt(i))) i++;
        if (++count > budget) return true;
      }
    } else if (c === 0x27) {
      i = stringEnd(sql, i);
      if (i === -1) return true;
    } else if (c === 0x3b) {
      count = 0;
      i++;
    } else if (
      c === 0x22 ||
      (c === 0x2d && sql.charCodeAt(i + 1) === 0x2d) ||
      (c === 0x2f && sql.charCodeAt(i + 1) === 0x2a) ||
      (c === 0x24 && (sql.charCodeAt(i + 1) === 0x24 || isIdentStart(sql.charCodeAt(i + 1))))
    ) {
      return true;
    } else {
      if (++count > budget) return true;
      i++;
    }
  }
  return false;
}

/** Past the string literal whose opening quote is at `i` (a doubled quote stays inside), or -1: not closed. */
function stringEnd(sql: string, i: number): number {
  for (;;) {
    const q = sql.indexOf("'", i + 1);
    if (q === -1 || sql.charCodeAt(q + 1) !== 0x27) return q === -1 ? -1 : q + 1;
    i = q + 1;
  }
}

/** Past the digits, fraction and exponent of a number starting at `i` (a digit). */
function skipNumber(sql: string, i: number): number {
  i = skipDigits(sql, i);
  if (sql.charCodeAt(i) === 0x2e && isDigit(sql.charCodeAt(i + 1))) i = skipDigits(sql, i + 1);
  if ((sql.charCodeAt(i) | 0x20) === 0x65) {
    const s = sql.charCodeAt(i + 1);
    const j = s === 0x2b || s === 0x2d ? i + 2 : i + 1;
    if (isDigit(sql.charCodeAt(j))) i = skipDigits(sql, j);
  }
  return i;
}

function skipDigits(sql: string, i: number): number {
  while (i < sql.length) {
    const c = sql.charCodeAt(i);
    if (!isDigit(c) && c !== 0x5f) break;
    i++;
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** PostgreSQL's ident_start: letters, `_` and every non-ASCII character. */
function isIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0x80;
}

/** PostgreSQL's ident_cont: ident_start, digits and `$`. */
function isIdentCont(c: number): boolean {
  return isIdentStart(c) || isDigit(c) || c === 0x24;
}
