/**
 * Statements that are short as text but that PostgreSQL expands to huge expression trees before it checks for
 * interrupts (docs/security.md, "Planner bombs"): each level references the previous level's column several times,
 * and subquery pull-up (or CTE inlining, or the parser's own rewriting of BETWEEN and IN) copies the column's
 * expression into every reference. On PostgreSQL 15 with `statement_timeout = 1s`, 20 levels of `concat` ran 11 s and
 * took 1.7 GB in one backend; 9 levels of `numeric` ran 13 s (2.3 GB). Every form must be refused with
 * `statement_too_complex` at `levels` = 20; the fuzzer (fuzz/arbitraries.ts) generates them with 1 to 24 levels.
 */
export const EXPANSION_FORMS = [
  'concat',
  'numeric',
  'cte',
  'scalar',
  'lateral',
  'notMaterialized',
  'values',
  'between',
  'in',
] as const;

export type ExpansionForm = (typeof EXPANSION_FORMS)[number];

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** One statement of a form, `levels` deep; each level's derived table is named `a<level>`. */
export function expansionAttack(form: ExpansionForm, levels: number): string {
  switch (form) {
    case 'concat':
      // SELECT s || s AS s FROM (<previous>) AS a: the planner pulls each level up into the next.
      return `SELECT s FROM ${nest(levels, 'SELECT note AS s FROM ledger_entries', (i, q) => `SELECT s || s AS s FROM (${q}) AS a${i}`)} AS z`;
    case 'numeric':
      return `SELECT x FROM ${nest(levels, 'SELECT 1.5 AS x', (i, q) => `SELECT x * x - x * x + x AS x FROM (${q}) AS a${i}`)} AS z`;
    case 'cte': {
      const items = range(levels).map((i) => `a${i} AS (SELECT s || s AS s FROM a${i - 1})`);
      return `WITH a0 AS (SELECT note AS s FROM ledger_entries), ${items.join(', ')} SELECT s FROM a${levels}`;
    }
    case 'scalar':
      // The repeated column sits in a scalar subquery: each copy of the subquery carries both references.
      return `SELECT s FROM ${nest(levels, "SELECT 'ab' AS s", (i, q) => `SELECT (SELECT a${i}.s || a${i}.s) AS s FROM (${q}) AS a${i}`)} AS z`;
    case 'lateral':
      return `SELECT s FROM ${nest(levels, "SELECT 'ab' AS s", (i, q) => `SELECT b.s FROM (${q}) AS a${i}, LATERAL (SELECT a${i}.s || a${i}.s AS s) AS b`)} AS z`;
    case 'notMaterialized': {
      // Each reference to a NOT MATERIALIZED CTE inlines a copy of its whole query.
      const items = range(levels).map(
        (i) => `a${i} AS NOT MATERIALIZED (SELECT x.s FROM a${i - 1} x, a${i - 1} y)`,
      );
      return `WITH a0 AS NOT MATERIALIZED (SELECT 1 AS s), ${items.join(', ')} SELECT count(*) FROM a${levels}`;
    }
    case 'values':
      // A one-row VALUES list is pulled up like a subquery.
      return `SELECT v FROM ${nest(levels, "SELECT 'ab' AS v", (i, q) => `SELECT a${i}.v || a${i}.v AS v FROM (VALUES ((${q}))) AS a${i}(v)`)} AS z`;
    case 'between':
      // The parser rewrites x BETWEEN a AND b as x >= a AND x <= b: two copies of x per level, no subquery at all.
      return `SELECT ${nestExpression(levels, 'true', (e) => `(${e}) BETWEEN true AND true`)}`;
    case 'in':
      // x IN (y, z) with column items becomes x = y OR x = z: a copy of x per item.
      return `SELECT ${nestExpression(levels, 'is_archived', (e) => `(${e}) IN (is_archived, is_archived)`)} FROM account_metadata`;
  }
}

function nest(levels: number, base: string, wrap: (level: number, inner: string) => string): string {
  let q = base;
  for (let i = 1; i <= levels; i++) q = wrap(i, q);
  return `(${q})`;
}

function nestExpression(levels: number, base: string, wrap: (inner: string) => string): string {
  let e = base;
  for (let i = 0; i < levels; i++) e = wrap(e);
  return e;
}
