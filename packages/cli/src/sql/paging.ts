/**
 * Paging a read with LIMIT/OFFSET (`expense query --all`). Pages are only consistent when the order is
 * fixed, so the query must end in its own top-level ORDER BY; the CLI appends `LIMIT n OFFSET m` to it.
 * Lexical only (the dialect has no comments, quoted identifiers or dollar quotes: '...' literals are the only
 * place a keyword can hide); the server's guard still judges every page.
 */

/** The SQL with literals blanked and everything inside parentheses removed: only the top level remains. */
function topLevel(sql: string): string {
  let out = '';
  let depth = 0;
  let inLiteral = false;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (inLiteral) {
      if (ch === "'") {
        if (sql[i + 1] === "'") i++;
        else inLiteral = false;
      }
      continue;
    }
    if (ch === "'") inLiteral = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

export type PagingProblem = 'no_order_by' | 'has_limit' | 'several_statements';

/** Why a query cannot be paged, or undefined when it can. */
export function pagingProblem(sql: string): PagingProblem | undefined {
  const body = stripTrailingSemicolon(sql);
  const top = topLevel(body);
  if (top.includes(';')) return 'several_statements';
  if (/\b(limit|offset|fetch)\b/i.test(top)) return 'has_limit';
  // The ORDER BY must be the query's own, after its last set operation.
  const lastOrder = top.search(/\border\s+by\b(?![\s\S]*\border\s+by\b)/i);
  if (lastOrder < 0) return 'no_order_by';
  if (/\b(union|intersect|except)\b/i.test(top.slice(lastOrder))) return 'no_order_by';
  return undefined;
}

export function stripTrailingSemicolon(sql: string): string {
  return sql.trim().replace(/;\s*$/, '').trimEnd();
}

/** The query for one page. */
export function pageSql(sql: string, limit: number, offset: number): string {
  return `${stripTrailingSemicolon(sql)}\nLIMIT ${limit} OFFSET ${offset}`;
}
