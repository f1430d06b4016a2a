// An independent lower estimate of a statement's expanded size (guard.md, `maxExpandedNodes`), written from the
// contract, not from the guard's code: every parse node counts one; a reference `alias.column` (or a bare name found
// in a derived table of the same query level) to a subquery, VALUES list or non-MATERIALIZED CTE in FROM counts the
// size of that column's expression; BETWEEN counts its left operand twice. It leaves out what the guard also counts
// (copies of whole CTEs, IN lists, `*`, outer levels, set operations' sums), so the guard's size is at least about a
// third of it (the guard does not count name strings as nodes): the fuzzer flags an accepted statement only when
// this estimate passes four times the bound. Each query level is estimated once, so the estimate is linear.
type Node = Record<string, unknown>;
type Columns = Map<string, number>;

interface Level {
  /** FROM items of this query level by the name a reference uses: their columns' sizes. */
  items: Map<string, Columns>;
  /** CTEs in scope by name. */
  ctes: Map<string, Columns>;
  parent: Level | undefined;
}

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (xs: unknown): string[] =>
  Array.isArray(xs)
    ? xs.flatMap((x) => {
        const s = (x as { String?: { sval?: unknown } }).String?.sval;
        return typeof s === 'string' ? [s] : [];
      })
    : [];

export function estimateExpandedSize(stmt: Node): number {
  return size(stmt, undefined);
}

function size(value: unknown, level: Level | undefined): number {
  if (Array.isArray(value)) {
    let n = 0;
    for (const v of value) n += size(v, level);
    return n;
  }
  if (!isNode(value)) return 0;
  let n = 0;
  for (const [key, inner] of Object.entries(value)) {
    if (!isNode(inner) && !Array.isArray(inner)) continue;
    if (!/^[A-Z]/.test(key) || !isNode(inner)) {
      n += size(inner, level);
      continue;
    }
    switch (key) {
      case 'SelectStmt':
        n += 1 + query(inner, level).total;
        break;
      case 'ColumnRef':
        n += columnRef(inner, level);
        break;
      case 'A_Expr':
        n +=
          1 +
          (typeof inner.kind === 'string' && inner.kind.includes('BETWEEN') ? 2 : 1) *
            size(inner.lexpr, level) +
          size(inner.rexpr, level);
        break;
      default:
        n += 1 + size(inner, level);
    }
  }
  return n;
}

function columnRef(ref: Node, level: Level | undefined): number {
  const fields = strings(ref.fields);
  if (fields.length === 2) {
    for (let l = level; l; l = l.parent) {
      const columns = l.items.get(fields[0]!);
      if (columns) return columns.get(fields[1]!) ?? 1;
    }
    return 1;
  }
  if (fields.length === 1 && level) {
    for (const columns of level.items.values()) {
      const s = columns.get(fields[0]!);
      if (s !== undefined) return s;
    }
  }
  return 1;
}

/** A SELECT (or a write: only its parts are counted): its total and its output columns' sizes. */
function query(n: Node, outer: Level | undefined): { total: number; columns: Columns } {
  const level: Level = { items: new Map(), ctes: new Map(), parent: outer };
  if (outer) for (const [k, v] of outer.ctes) level.ctes.set(k, v);
  let total = 0;
  const withCtes = isNode(n.withClause) ? n.withClause.ctes : undefined;
  for (const c of Array.isArray(withCtes) ? withCtes : []) {
    const cte = (c as { CommonTableExpr?: Node }).CommonTableExpr;
    if (!cte) continue;
    const body = isNode(cte.ctequery) ? (cte.ctequery.SelectStmt as Node | undefined) : undefined;
    if (!body) {
      total += size(cte.ctequery, level);
      continue;
    }
    const r = query(body, level);
    total += r.total;
    if (cte.ctematerialized !== 'CTEMaterializeAlways')
      level.ctes.set(String(cte.ctename), rename(r.columns, strings(cte.aliascolnames)));
  }
  if (n.larg !== undefined || n.rarg !== undefined) {
    const l = query(unwrap(n.larg), level);
    const r = query(unwrap(n.rarg), level);
    return { total: total + l.total + r.total, columns: l.columns };
  }
  for (const item of Array.isArray(n.fromClause) ? n.fromClause : []) total += fromItem(item, level);
  const columns: Columns = new Map();
  if (Array.isArray(n.valuesLists)) {
    for (const row of n.valuesLists) {
      const items = (row as { List?: { items?: unknown[] } }).List?.items ?? [];
      items.forEach((v, i) => {
        const s = size(v, level);
        total += s;
        columns.set(`column${i + 1}`, Math.max(columns.get(`column${i + 1}`) ?? 0, s));
      });
    }
  }
  for (const t of Array.isArray(n.targetList) ? n.targetList : []) {
    const rt = (t as { ResTarget?: Node }).ResTarget;
    if (!rt) continue;
    const s = size(rt.val, level);
    total += s;
    const ref = isNode(rt.val) ? (rt.val.ColumnRef as Node | undefined) : undefined;
    const name = typeof rt.name === 'string' ? rt.name : ref ? strings(ref.fields).at(-1) : undefined;
    if (name !== undefined && !columns.has(name)) columns.set(name, s);
  }
  for (const key of ['whereClause', 'havingClause', 'groupClause', 'sortClause', 'returningList']) {
    total += size(n[key], level);
  }
  return { total, columns };
}

function fromItem(value: unknown, level: Level): number {
  if (!isNode(value)) return 0;
  if (isNode(value.RangeSubselect)) {
    const rs = value.RangeSubselect;
    const sub = isNode(rs.subquery) ? (rs.subquery.SelectStmt as Node | undefined) : undefined;
    if (!sub) return size(rs, level);
    const r = query(sub, level);
    const alias = isNode(rs.alias) ? rs.alias : undefined;
    if (alias) level.items.set(String(alias.aliasname), rename(r.columns, strings(alias.colnames)));
    return 1 + r.total;
  }
  if (isNode(value.RangeVar)) {
    const rv = value.RangeVar;
    const cte = level.ctes.get(String(rv.relname));
    const alias = isNode(rv.alias) ? rv.alias : undefined;
    if (cte) level.items.set(alias ? String(alias.aliasname) : String(rv.relname), cte);
    return 1;
  }
  if (isNode(value.JoinExpr)) {
    const j = value.JoinExpr;
    return 1 + fromItem(j.larg, level) + fromItem(j.rarg, level) + size(j.quals, level);
  }
  return size(value, level);
}

/** A set-operation arm, wrapped (`{ SelectStmt: ... }`) or not. */
function unwrap(value: unknown): Node {
  if (!isNode(value)) return {};
  return isNode(value.SelectStmt) ? value.SelectStmt : value;
}

function rename(columns: Columns, aliases: string[]): Columns {
  if (aliases.length === 0) return columns;
  const sizes = [...columns.values()];
  const out: Columns = new Map();
  for (let i = 0; i < aliases.length; i++) out.set(aliases[i]!, sizes[i] ?? 1);
  for (const [k, v] of [...columns.entries()].slice(aliases.length)) if (!out.has(k)) out.set(k, v);
  return out;
}
