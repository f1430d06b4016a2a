/**
 * The lean path: a read whose result has a size known before it runs needs no measuring in the database.
 *
 * Every read travels inside a wrapper that measures its rows' text as the database produces them and stops the
 * statement at the byte cap, so that no more than about the budget reaches this process (wrapper-sql.ts,
 * `measured`). That costs the database a cast to text of every row. A plain read of one relation (statement-shape.ts,
 * `output`) whose output columns all have a bound in the catalog (column-widths.ts) returns at most
 * `rows × (bound of a row)` bytes of JSON, where `rows` is its literal LIMIT or the row cap the cursor fetches,
 * whichever is lower. When that fits half the budget still left, nothing can pass the budget and the statement
 * runs without the wrapper; otherwise it keeps it. `run` measures the JSON of the rows it receives either way.
 */
import type { ColumnWidths } from './column-widths.js';
import type { PlainOutput } from './statement-shape.js';

/**
 * What a row costs beyond its JSON object where it is sent: the comma between the rows of an array (the
 * envelope's `"rows":[…]`).
 */
export const ROW_OVERHEAD_BYTES = 1;

/** The bound must fit this share of the budget left (the rest is margin). */
export const LEAN_BUDGET_SHARE = 0.5;

const keyBytes = (name: string): number => Buffer.byteLength(JSON.stringify(name));

/**
 * The most bytes one row of `output` can take as the JSON object `run` answers (`{"name":value,…}`), plus
 * {@link ROW_OVERHEAD_BYTES}; null when a column of it has no bound (or is not a column of the relation).
 */
export function rowBound(output: PlainOutput, widths: ColumnWidths): number | null {
  const columns = widths.get(output.relation);
  if (!columns) return null;
  let bytes = 2 + ROW_OVERHEAD_BYTES; // `{` `}` and the separator
  let count = 0;
  const add = (name: string, width: number | null | undefined): boolean => {
    if (width === null || width === undefined) return false;
    bytes += keyBytes(name) + 1 + Math.max(width, 4); // `"name":` and the value (`null` at least)
    count++;
    return true;
  };
  for (const item of output.columns) {
    if (item === '*') {
      for (const [name, width] of columns) if (!add(name, width)) return null;
    } else if (!add(item.name, columns.get(item.column))) {
      return null;
    }
  }
  return bytes + Math.max(0, count - 1); // the commas between the members
}

/** The most bytes the JSON of a statement's rows can take: `rows` rows of `output`; null when unknown. */
export function resultBound(output: PlainOutput, widths: ColumnWidths, rows: number): number | null {
  const row = rowBound(output, widths);
  return row === null ? null : rows * row;
}

export interface LeanQuestion {
  output: PlainOutput | null;
  /** The statement's literal LIMIT, or null. */
  limit: number | null;
  /** The row cap: a read without a LIMIT within it runs through a cursor that fetches this many. */
  maxReturnedRows: number;
  /** The budget the statement's rows may still take (maxResultBytes less the request's rows so far). */
  remainingBytes: number;
}

/** Whether a read may run without the measuring wrapper: its result provably fits half the budget left. */
export function runsLean(question: LeanQuestion, widths: ColumnWidths | undefined): boolean {
  if (!widths || !question.output) return false;
  const rows = Math.min(question.limit ?? question.maxReturnedRows, question.maxReturnedRows);
  const bound = resultBound(question.output, widths, rows);
  return bound !== null && bound <= question.remainingBytes * LEAN_BUDGET_SHARE;
}
