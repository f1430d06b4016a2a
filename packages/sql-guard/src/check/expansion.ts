import type { NsItem } from './scope.js';
import type { Walker } from './walker.js';

/**
 * The expanded size of a statement (`limits.maxExpandedNodes`, `statement_too_complex`): the nodes of its trees once
 * PostgreSQL has copied what it copies before it ever checks for an interrupt, so that a short text cannot make
 * the planner build a tree of millions of nodes (docs/security.md, "Planner bombs"):
 *
 * - subquery pull-up and CTE inlining replace each reference to an output column of a derived table, CTE, VALUES
 *   list or LATERAL subquery by a copy of the column's expression;
 * - a CTE that is not MATERIALIZED is inlined as a copy of its whole query at each reference;
 * - the parser rewrites `x BETWEEN a AND b` as `x >= a AND x <= b` (and SYMMETRIC as four comparisons), and
 *   `x IN (a, b)` as `x = a OR x = b`, copying the left operand.
 *
 * The walk counts each node once as it enters it (Walker.size) and, at each of these places, adds the size of the
 * copies from sizes it measured already: every output column carries the size of its expression, every CTE the
 * size of its query. The computation stays linear in the text, whatever the size it finds. The model is
 * conservative: it counts every derived table as pulled up and every CTE that is not MATERIALIZED (and not a
 * data-modifying one) as inlined, even where PostgreSQL would keep it apart (an aggregate, a LIMIT, a CTE
 * referenced twice); a MATERIALIZED CTE is computed once, its columns count one node each.
 */

/** The expanded size of each output column of a query, parallel to its names; undefined: one node each. */
export type Sizes = readonly number[] | undefined;

const PREFIX = 'The statement is too complex: once PostgreSQL inlines its subqueries it holds more than';

function refuse(w: Walker, detail: string, hint: string): never {
  return w.fail('statement_too_complex', `${PREFIX} ${w.maxSize} expression nodes (${detail}).`, hint);
}

function grow(w: Walker, extra: number): boolean {
  w.size += extra;
  return w.size > w.maxSize;
}

function describe(item: NsItem): string {
  return item.refname ?? 'the unnamed subquery';
}

/** A reference to column `index` of `item` copies the column's expression. */
export function columnCopy(w: Walker, item: NsItem, index: number): void {
  const size = item.sizes?.[index];
  if (size === undefined || size <= 1 || !grow(w, size - 1)) return;
  const name = describe(item);
  const column = `${item.refname ? `${item.refname}.` : ''}${item.columns[index]}`;
  refuse(
    w,
    `column ${column}, an expression of ${size} nodes, is copied into each reference to it`,
    `${name}'s column ${item.columns[index]} is referenced repeatedly and each reference copies its expression: reference it once, or compute ${name} once as a WITH item declared AS MATERIALIZED (WITH ${name} AS MATERIALIZED (...))`,
  );
}

/** `*` or `t.*` copies the expressions of every column of `item`. */
export function starCopy(w: Walker, item: NsItem): void {
  if (!item.sizes) return;
  let extra = 0;
  for (const size of item.sizes) extra += size;
  if (!grow(w, extra)) return;
  const name = describe(item);
  refuse(
    w,
    `* copies the expressions of every column of ${name}`,
    `name the columns of ${name} you need, or compute ${name} once as a WITH item declared AS MATERIALIZED`,
  );
}

/** A further reference to a CTE that is not MATERIALIZED inlines another copy of its query. */
export function cteCopy(w: Walker, name: string, total: number): void {
  if (!grow(w, total)) return;
  refuse(
    w,
    `WITH item ${name}, a query of ${total} nodes, is inlined at each of its references`,
    `reference ${name} once, or declare it AS MATERIALIZED (WITH ${name} AS MATERIALIZED (...)) so PostgreSQL computes it once`,
  );
}

/** Walks an operand the parser copies `copies` times (BETWEEN and IN); `construct` names the construct. */
export function copiedOperand(w: Walker, value: unknown, copies: number, construct: 'BETWEEN' | 'IN'): void {
  const before = w.size;
  w.node(value);
  const size = w.size - before;
  if (copies <= 1 || !grow(w, size * (copies - 1))) return;
  refuse(
    w,
    `an operand of ${construct}, ${size} nodes, is copied ${copies} times`,
    construct === 'BETWEEN'
      ? 'PostgreSQL rewrites x BETWEEN a AND b as x >= a AND x <= b, copying x: compare a plain column, or write the two comparisons on a column computed once'
      : 'PostgreSQL rewrites x IN (a, b, ...) as x = a OR x = b ..., copying x for each item: compare a plain column, or compute the value once in a subquery',
  );
}

/** After the walk: the statement's own nodes, copies included. */
export function checkTotal(w: Walker): void {
  if (w.size <= w.maxSize) return;
  refuse(w, `it holds ${w.size}`, 'split the work into several smaller statements');
}

/** The sizes of a join's columns (scope.joinColumns): a merged USING column counts both sides' expressions. */
export function joinSizes(
  left: { columns: readonly string[]; sizes: Sizes },
  right: { columns: readonly string[]; sizes: Sizes },
  using: readonly string[] | undefined,
): Sizes {
  if (!left.sizes && !right.sizes) return undefined;
  const out: number[] = [];
  if (using && using.length > 0) {
    for (const c of using)
      out.push(sizeOf(left, left.columns.indexOf(c)) + sizeOf(right, right.columns.indexOf(c)) + 1);
  }
  pushSides(out, left, using);
  pushSides(out, right, using);
  return out;
}

function sizeOf(side: { sizes: Sizes }, i: number): number {
  return side.sizes?.[i] ?? 1;
}

/** The sizes of a side's columns that USING did not merge. */
function pushSides(
  out: number[],
  side: { columns: readonly string[]; sizes: Sizes },
  using: readonly string[] | undefined,
): void {
  for (let i = 0; i < side.columns.length; i++) {
    if (using?.includes(side.columns[i]!)) continue;
    out.push(sizeOf(side, i));
  }
}

/** Sizes of two set-operation arms, column by column: each arm's copy is made. */
export function addSizes(a: Sizes, b: Sizes, width: number): Sizes {
  if (!a && !b) return undefined;
  const out: number[] = [];
  for (let i = 0; i < width; i++) out.push((a?.[i] ?? 1) + (b?.[i] ?? 1));
  return out;
}
