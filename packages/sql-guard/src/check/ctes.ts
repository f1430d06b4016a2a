import type { Sizes, Weight } from './expansion.js';

/** A CTE in scope; `columns` is undefined while a WITH RECURSIVE item's columns are not known yet. */
export interface Cte {
  columns: readonly string[] | undefined;
  /** The expanded weight of each column (expansion.ts); undefined when PostgreSQL never inlines it or not known yet. */
  sizes: Sizes;
  /** The weight of its query when PostgreSQL may inline it (a copy at each reference), else undefined. */
  inlined: Weight | undefined;
  /** References to it walked so far. */
  refs: number;
}

/** The CTEs of a WITH clause, inside those of the enclosing levels. */
export interface CteScope {
  ctes: Map<string, Cte>;
  parent: CteScope | undefined;
}

/** The CTE a name refers to from `scope`: the innermost WITH that defines it. */
export function cteNamed(scope: CteScope | undefined, name: string): Cte | undefined {
  for (let s = scope; s; s = s.parent) {
    const cte = s.ctes.get(name);
    if (cte) return cte;
  }
  return undefined;
}
