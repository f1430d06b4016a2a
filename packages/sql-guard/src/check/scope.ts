/**
 * Name resolution with PostgreSQL's own scoping (parse_relation.c): which columns a reference can reach.
 *
 * A query level holds the namespace items of its FROM clause (relations, CTEs, subqueries, VALUES lists,
 * joins). PostgreSQL resolves a bare name to the first level, innermost out, where a column-visible item
 * has that column; a qualified name `t.c` to the first level where an item is visible as `t`, and then
 * `c` must be one of its columns: otherwise PostgreSQL reads `t.c` as the call `c(t)`. The guard refuses
 * every reference that does not resolve this way, so no function is reachable through field notation.
 */

import type { Sizes } from './expansion.js';

export interface NsItem {
  /** The name a qualified reference uses (alias, else relation or CTE name); undefined when not visible as a relation. */
  refname: string | undefined;
  columns: readonly string[];
  /** Whether bare column names reach this item (false for the tables inside an unaliased join). */
  colsVisible: boolean;
  /** Set while the FROM clause is being read: visible only to LATERAL items (PostgreSQL's p_lateral_only). */
  lateralOnly: boolean;
  /** The expanded size of each column's expression, parallel to `columns` (expansion.ts); undefined: 1 each. */
  sizes: Sizes;
  /** The partial relation (dialect `partial`) whose columns this item holds, itself or inside a join. */
  partial: string | undefined;
}

export class Level {
  items: NsItem[] = [];
  /** Set while a LATERAL item of this level is read: its lateral-only items become visible to it. */
  lateralActive = false;
  constructor(readonly parent: Level | undefined) {}
}

/** Every item is built here or in `hidden`, with the same fields in the same order (one shape for the walk). */
export function item(
  refname: string | undefined,
  columns: readonly string[],
  sizes?: Sizes,
  partial?: string,
): NsItem {
  return { refname, columns, colsVisible: true, lateralOnly: false, sizes, partial };
}

/** A copy of `i` that bare column names do not reach (a table inside an unaliased join). */
export function hidden(i: NsItem): NsItem {
  return {
    refname: i.refname,
    columns: i.columns,
    colsVisible: false,
    lateralOnly: i.lateralOnly,
    sizes: i.sizes,
    partial: i.partial,
  };
}

function visible(level: Level, i: NsItem): boolean {
  return !i.lateralOnly || level.lateralActive;
}

/** The item whose column a bare name is, if any (PostgreSQL's colNameToVar). */
export function resolveBare(level: Level | undefined, name: string): NsItem | undefined {
  for (let l = level; l; l = l.parent) {
    for (const i of l.items) if (i.colsVisible && visible(l, i) && i.columns.includes(name)) return i;
  }
  return undefined;
}

/** Whether a bare name is a column of an item of this level alone. */
export function resolvesLocally(level: Level | undefined, name: string): boolean {
  if (!level) return false;
  for (const i of level.items)
    if (i.colsVisible && visible(level, i) && i.columns.includes(name)) return true;
  return false;
}

/** The item a qualifier names: the innermost level that has one wins (PostgreSQL's refnameNamespaceItem). */
export function findRefname(level: Level | undefined, refname: string): NsItem | undefined {
  for (let l = level; l; l = l.parent) {
    for (const i of l.items) if (i.refname === refname && visible(l, i)) return i;
  }
  return undefined;
}

/** The items whose columns `SELECT *` expands to at this level. */
export function starItems(level: Level | undefined): NsItem[] {
  if (!level) return [];
  return level.items.filter((i) => i.colsVisible && visible(level, i));
}

/** Every column name a bare reference could reach, for hints (qualified where a qualifier is known). */
export function columnsInScope(level: Level | undefined): string[] {
  const out = new Set<string>();
  for (let l = level; l; l = l.parent) {
    for (const i of l.items) {
      if (!visible(l, i)) continue;
      for (const c of i.columns) out.add(i.refname && !i.colsVisible ? `${i.refname}.${c}` : c);
    }
  }
  return [...out];
}

/** A column list with its first names replaced by an alias list; undefined when the alias lists too many. */
export function renamed(
  columns: readonly string[],
  aliases: readonly string[] | undefined,
): readonly string[] | undefined {
  if (!aliases) return columns;
  if (aliases.length > columns.length) return undefined;
  return [...aliases, ...columns.slice(aliases.length)];
}

/**
 * The columns of a join: with USING (or NATURAL, whose USING list is the common names) the merged columns
 * first, then the other columns of the left and of the right side (PostgreSQL's transformFromClauseItem).
 */
export function joinColumns(
  left: readonly string[],
  right: readonly string[],
  using: readonly string[] | undefined,
): string[] {
  if (!using || using.length === 0) return [...left, ...right];
  const merged = new Set(using);
  return [...using, ...left.filter((c) => !merged.has(c)), ...right.filter((c) => !merged.has(c))];
}

export function naturalColumns(left: readonly string[], right: readonly string[]): string[] {
  const r = new Set(right);
  return [...new Set(left.filter((c) => r.has(c)))];
}

export function formatColumns(columns: readonly string[]): string {
  if (columns.length === 0) return '(none)';
  return columns.join(', ');
}
