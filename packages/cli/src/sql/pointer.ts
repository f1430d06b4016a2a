/**
 * Renders the line of SQL that holds `offset` (0-based) with a caret under the character, the way psql
 * shows a syntax error position. Tabs are kept so that the caret lines up in a terminal.
 */
export function pointAt(sql: string, offset: number): string[] {
  const at = Math.max(0, Math.min(offset, sql.length));
  const lineStart = sql.lastIndexOf('\n', at - 1) + 1;
  const nextBreak = sql.indexOf('\n', at);
  const lineEnd = nextBreak === -1 ? sql.length : nextBreak;
  const lineNumber = sql.slice(0, lineStart).split('\n').length;
  const line = sql.slice(lineStart, lineEnd).replace(/\r$/, '');
  const prefix = `LINE ${lineNumber}: `;
  const pad = line.slice(0, at - lineStart).replace(/[^\t]/g, ' ');
  return [`${prefix}${line}`, `${' '.repeat(prefix.length)}${pad}^`];
}
