import type { NsItem } from './scope.js';
import type { Walker } from './walker.js';

/**
 * The expanded size of a statement (`statement_too_complex`), in two measures of what PostgreSQL builds before it
 * ever checks for an interrupt, so that a short text cannot make the planner build millions of nodes or gigabytes
 * (docs/security.md, "Planner bombs"):
 *
 * - **nodes** (`limits.maxExpandedNodes`): the nodes of its trees once PostgreSQL has made its copies;
 * - **bytes** (`limits.maxExpandedBytes`): what folding its constants may build. A constant weighs its length (a
 *   numeric its digits, exponent included); every expression over constants builds a value as long as its operands
 *   together (`a || b`, `a * b`), once per copy; matching or multiplying two constants (`LIKE`, `ILIKE`, `*`, `/`,
 *   `%`) takes one step per pair of their bytes, and 64 such steps weigh one byte.
 *
 * Copies are made where PostgreSQL makes them:
 * - subquery pull-up and CTE inlining replace each reference to an output column of a derived table, CTE, VALUES
 *   list or LATERAL subquery by a copy of the column's expression;
 * - a CTE that is not MATERIALIZED is inlined as a copy of its whole query at each reference;
 * - the parser rewrites `x BETWEEN a AND b` as `x >= a AND x <= b` (and SYMMETRIC as four comparisons), and
 *   `x IN (a, b)` as `x = a OR x = b`, copying the left operand.
 *
 * The walk counts as it goes (Walker.size, .value, .bytes) and, at each of these places, adds the weight of the
 * copies from weights it measured already: every output column carries the weight of its expression, every CTE the
 * weight of its query. The computation stays linear in the text, whatever it finds. The model is conservative: every
 * derived table counts as pulled up and every CTE that is not MATERIALIZED (and not a data-modifying one) as inlined,
 * even where PostgreSQL keeps it apart (an aggregate, a LIMIT, a CTE referenced twice), and every expression as
 * folded; a MATERIALIZED CTE is computed once, its columns weigh one node each.
 */

/** What an expression (or a whole query) weighs once expanded. */
export interface Weight {
  /** Parse nodes, copies included. */
  readonly nodes: number;
  /** Bytes of the constants it holds: the length of the value it folds to, at most. */
  readonly value: number;
  /** Bytes PostgreSQL may build while it copies and folds it. */
  readonly bytes: number;
}

/** The weight of each output column of a query, parallel to its names; undefined: one node each, no bytes. */
export type Sizes = readonly Weight[] | undefined;

export const ONE_NODE: Weight = Object.freeze({ nodes: 1, value: 0, bytes: 0 });

/** Steps of matching or multiplying that weigh one byte (LIKE over 1e9 byte pairs: about 1 s on PostgreSQL 15). */
export const STEPS_PER_BYTE = 64;

const PREFIX = 'The statement is too complex: once PostgreSQL inlines its subqueries and folds its constants';

function refuse(w: Walker, detail: string, hint: string): never {
  const over =
    w.bytes > w.maxBytes
      ? `builds more than ${w.maxBytes} bytes`
      : `holds more than ${w.maxSize} expression nodes`;
  return w.fail('statement_too_complex', `${PREFIX} it ${over} (${detail}).`, hint);
}

function over(w: Walker): boolean {
  return w.size > w.maxSize || w.bytes > w.maxBytes;
}

/** Adds `copies` copies of `weight`; true when the statement is now past a bound. */
function grow(w: Walker, weight: Weight, copies = 1): boolean {
  w.size += weight.nodes * copies;
  w.value += weight.value * copies;
  w.bytes += weight.bytes * copies;
  return over(w);
}

export function plus(a: Weight, b: Weight): Weight {
  return { nodes: a.nodes + b.nodes, value: a.value + b.value, bytes: a.bytes + b.bytes };
}

function describe(item: NsItem): string {
  return item.refname ?? 'the unnamed subquery';
}

/** A reference to column `index` of `item` copies the column's expression (its own node was counted). */
export function columnCopy(w: Walker, item: NsItem, index: number): void {
  const weight = item.sizes?.[index];
  if (weight === undefined) return;
  const extra = { nodes: weight.nodes - 1, value: weight.value, bytes: weight.bytes };
  const name = describe(item);
  const column = `${item.refname ? `${item.refname}.` : ''}${item.columns[index]}`;
  if (weight.bytes > w.heaviestCopy.bytes) w.heaviestCopy = { bytes: weight.bytes, column, item: name };
  if (!grow(w, extra)) return;
  refuse(
    w,
    `column ${column}, an expression of ${weight.nodes} nodes building ${weight.bytes} bytes, is copied into each reference to it`,
    `${name}'s column ${item.columns[index]} is referenced repeatedly and each reference copies its expression: reference it once, or compute ${name} once as a WITH item declared AS MATERIALIZED (WITH ${name} AS MATERIALIZED (...))`,
  );
}

/** `*` or `t.*` copies the expressions of every column of `item`. */
export function starCopy(w: Walker, item: NsItem): void {
  if (!item.sizes) return;
  let extra: Weight = { nodes: 0, value: 0, bytes: 0 };
  for (const weight of item.sizes) extra = plus(extra, weight);
  if (!grow(w, extra)) return;
  const name = describe(item);
  refuse(
    w,
    `* copies the expressions of every column of ${name}`,
    `name the columns of ${name} you need, or compute ${name} once as a WITH item declared AS MATERIALIZED`,
  );
}

/** A further reference to a CTE that is not MATERIALIZED inlines another copy of its query. */
export function cteCopy(w: Walker, name: string, query: Weight): void {
  if (!grow(w, query)) return;
  refuse(
    w,
    `WITH item ${name}, a query of ${query.nodes} nodes building ${query.bytes} bytes, is inlined at each of its references`,
    `reference ${name} once, or declare it AS MATERIALIZED (WITH ${name} AS MATERIALIZED (...)) so PostgreSQL computes it once`,
  );
}

/** Walks an operand the parser copies `copies` times (BETWEEN and IN); `construct` names the construct. */
export function copiedOperand(w: Walker, value: unknown, copies: number, construct: 'BETWEEN' | 'IN'): void {
  const mark = w.mark();
  w.node(value);
  const operand = w.since(mark);
  if (copies <= 1 || !grow(w, operand, copies - 1)) return;
  refuse(
    w,
    `an operand of ${construct}, ${operand.nodes} nodes, is copied ${copies} times`,
    construct === 'BETWEEN'
      ? 'PostgreSQL rewrites x BETWEEN a AND b as x >= a AND x <= b, copying x: compare a plain column, or write the two comparisons on a column computed once'
      : 'PostgreSQL rewrites x IN (a, b, ...) as x = a OR x = b ..., copying x for each item: compare a plain column, or compute the value once in a subquery',
  );
}

/**
 * The weight of a constant's text: its UTF-8 length, or for a number written with an exponent (`1e1000`, a
 * numeric of 1,001 digits) its length plus the exponent. One plain forward scan that stops at the first character a
 * number cannot hold (a regular expression over 100,000 digits would backtrack quadratically; searching the text
 * backwards for an `e` read every string constant whole).
 */
export function constantWeight(text: string): number {
  const bytes = Buffer.byteLength(text, 'utf8');
  const n = text.length;
  let end = n;
  while (end > 0 && text.charCodeAt(end - 1) <= 0x20) end--;
  // The mantissa: optional spaces and sign, then digits with at most one point.
  let i = 0;
  while (i < end && text.charCodeAt(i) <= 0x20) i++;
  let c = text.charCodeAt(i);
  if (c === 0x2b || c === 0x2d) i++;
  let digits = 0;
  let points = 0;
  for (; i < end; i++) {
    c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) digits++;
    else if (c === 0x2e && ++points === 1) continue;
    else break;
  }
  // Then `e` or `E`, an optional sign and at least one more character, all of them digits, up to the end.
  if (digits === 0 || i > end - 2 || (text.charCodeAt(i) | 0x20) !== 0x65) return bytes;
  i++;
  c = text.charCodeAt(i);
  if (c === 0x2b || c === 0x2d) i++;
  let exponent = 0;
  for (; i < end; i++) {
    c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return bytes;
    exponent = Math.min(exponent * 10 + (c - 0x30), 1e9);
  }
  return bytes + exponent;
}

/** A constant of `weight` bytes at `at`; the heaviest one is named when the statement builds too much. */
export function constant(w: Walker, text: string, at: number): void {
  const weight = constantWeight(text);
  w.value += weight;
  if (weight > w.largest.weight) w.largest = { weight, at, text };
}

/** An expression that folds to a value as long as its operands together (the value walked since `value0`). */
export function folded(w: Walker, value0: number): void {
  w.bytes += w.value - value0;
  if (w.bytes > w.maxBytes) refuseBytes(w);
}

/** Matching or multiplying operands of `left` and `right` value bytes. */
export function pairwise(w: Walker, left: number, right: number): void {
  w.bytes += Math.ceil((left * right) / STEPS_PER_BYTE);
  if (w.bytes > w.maxBytes) refuseBytes(w);
}

/** Past `maxBytes`: names the heaviest constant and, when copies carried it, the column copied most heavily. */
function refuseBytes(w: Walker): never {
  const { weight, at, text } = w.largest;
  const copy = w.heaviestCopy;
  const literal = text.length > 24 ? `${text.slice(0, 16)}...` : text;
  if (weight > 0) w.at = at;
  const what = weight > 0 ? `its longest constant, ${literal} of ${weight} bytes, is` : 'its constants are';
  return refuse(
    w,
    copy.bytes > 0
      ? `${what} copied with column ${copy.column}, which builds ${copy.bytes} bytes at each reference`
      : `${what} copied, combined or matched too many times`,
    copy.bytes > 0
      ? `reference ${copy.column} once, pass shorter values, or compute ${copy.item} once as a WITH item declared AS MATERIALIZED`
      : weight > 0
        ? `use the constant ${literal} (${weight} bytes) once, or pass a shorter value`
        : 'split the work into several smaller statements',
  );
}

/** After the walk: the statement's own weight, copies included. */
export function checkTotal(w: Walker): void {
  if (!over(w)) return;
  if (w.bytes > w.maxBytes) refuseBytes(w);
  refuse(w, `it holds ${w.size}`, 'split the work into several smaller statements');
}

/** The weights of a join's columns (scope.joinColumns): a merged USING column weighs both sides' and a COALESCE. */
export function joinSizes(
  left: { columns: readonly string[]; sizes: Sizes },
  right: { columns: readonly string[]; sizes: Sizes },
  using: readonly string[] | undefined,
): Sizes {
  if (!left.sizes && !right.sizes) return undefined;
  const out: Weight[] = [];
  if (using && using.length > 0) {
    for (const c of using)
      out.push(
        plus(
          plus(weightOf(left, left.columns.indexOf(c)), weightOf(right, right.columns.indexOf(c))),
          ONE_NODE,
        ),
      );
  }
  pushSides(out, left, using);
  pushSides(out, right, using);
  return out;
}

function weightOf(side: { sizes: Sizes }, i: number): Weight {
  return side.sizes?.[i] ?? ONE_NODE;
}

/** The weights of a side's columns that USING did not merge. */
function pushSides(
  out: Weight[],
  side: { columns: readonly string[]; sizes: Sizes },
  using: readonly string[] | undefined,
): void {
  for (let i = 0; i < side.columns.length; i++) {
    if (using?.includes(side.columns[i]!)) continue;
    out.push(weightOf(side, i));
  }
}

/** Weights of two set-operation arms, column by column: each arm's copy is made. */
export function addSizes(a: Sizes, b: Sizes, width: number): Sizes {
  if (!a && !b) return undefined;
  const out: Weight[] = [];
  for (let i = 0; i < width; i++) out.push(plus(a?.[i] ?? ONE_NODE, b?.[i] ?? ONE_NODE));
  return out;
}

/** The larger of two weights, measure by measure (a VALUES column over its rows). */
export function maxWeight(a: Weight | undefined, b: Weight): Weight {
  if (!a) return b;
  return {
    nodes: Math.max(a.nodes, b.nodes),
    value: Math.max(a.value, b.value),
    bytes: Math.max(a.bytes, b.bytes),
  };
}
