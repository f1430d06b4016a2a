/**
 * A small lexical view of SQL the user wrote, used only for presentation and for deciding whether to ask for
 * approval; the server's guard (the real PostgreSQL parser) decides what may run. The dialect forbids
 * comments, quoted identifiers, dollar quotes and non-standard literals, so ordinary '...' literals are the
 * only place a semicolon or a keyword can hide.
 */
export interface StatementSpan {
  text: string;
  /** 0-based offset of `text` within the script. */
  offset: number;
}

/**
 * The SQL with every comment (`-- ...` to the end of the line, `/* ... *\/`, nested as PostgreSQL nests them)
 * outside string literals replaced by spaces, newlines kept: the same length and layout, so positions the
 * server reports still point at the right place. The dialect accepts no comments, so a commented file is sent
 * this way; a quote inside a comment (`-- don't`) no longer looks like a literal.
 */
export function blankComments(sql: string): string {
  let out = '';
  let i = 0;
  const blank = (text: string) => text.replace(/[^\n]/g, ' ');
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'") {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === "'" && sql[j + 1] !== "'")) j += sql[j] === "'" ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += blank(sql.slice(i, stop));
      i = stop;
    } else if (ch === '/' && sql[i + 1] === '*') {
      let depth = 0;
      let j = i;
      while (j < sql.length) {
        if (sql[j] === '/' && sql[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (sql[j] === '*' && sql[j + 1] === '/') {
          depth--;
          j += 2;
          if (depth === 0) break;
        } else j++;
      }
      out += blank(sql.slice(i, j));
      i = j;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** Whether the SQL has a comment outside its string literals. */
export const hasComments = (sql: string) => blankComments(sql) !== sql;

/** Splits a script at semicolons outside string literals; empty statements are dropped. */
export function splitStatements(sql: string): StatementSpan[] {
  const spans: StatementSpan[] = [];
  let start = 0;
  let inLiteral = false;
  for (let i = 0; i <= sql.length; i++) {
    const ch = sql[i];
    if (inLiteral) {
      if (ch === "'") {
        if (sql[i + 1] === "'") i++;
        else inLiteral = false;
      }
      continue;
    }
    if (ch === "'") inLiteral = true;
    else if (ch === ';' || ch === undefined) {
      const raw = sql.slice(start, i);
      const lead = raw.length - raw.trimStart().length;
      const text = raw.trim();
      if (text) spans.push({ text, offset: start + lead });
      start = i + 1;
    }
  }
  return spans;
}

/** The text with every string literal's content blanked, so keywords inside data are not seen. */
function withoutLiterals(sql: string): string {
  return sql.replace(/'(?:[^']|'')*('|$)/g, "''");
}

const WRITE_WORDS =
  /\b(insert|update|delete|merge|create|drop|alter|truncate|grant|revoke|copy|call|do|set)\b/i;

/**
 * Whether a script may change data. Conservative: a script is a read only when every statement starts
 * with SELECT (or WITH, VALUES, TABLE, or a parenthesis) and no write keyword appears outside a literal
 * (which also catches data-modifying CTEs). A false "write" only costs an approval question.
 */
export function scriptMayWrite(sql: string): boolean {
  const statements = splitStatements(blankComments(sql));
  if (statements.length === 0) return false;
  return statements.some((s) => {
    const bare = withoutLiterals(s.text);
    if (!/^(\(|select\b|with\b|values\b|table\b)/i.test(bare.trimStart())) return true;
    return WRITE_WORDS.test(bare);
  });
}
