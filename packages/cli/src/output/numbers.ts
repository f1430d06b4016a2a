import { isNumericType } from './cells.js';

/** The decimal string without a sign's plus, leading zeros or trailing fractional zeros: "-001.50" → "-1.5". */
function canonicalDecimal(text: string): string {
  const negative = text.startsWith('-');
  let [whole = '', fraction = ''] = text.replace(/^[-+]/, '').split('.');
  whole = whole.replace(/^0+(?=\d)/, '');
  fraction = fraction.replace(/0+$/, '');
  const body = fraction ? `${whole}.${fraction}` : whole;
  return negative && body !== '0' ? `-${body}` : body;
}

/**
 * A numeric value as a JSON number when that is exact: integers within the safe range, and decimal strings
 * whose value a double holds exactly as written (so "-12.50" becomes -12.5, "0.1" stays 0.1 as JSON
 * shows it, but "12345678901234567.5" stays a string). Anything else is returned unchanged.
 */
export function exactNumber(value: unknown): unknown {
  if (typeof value !== 'string' || !/^[-+]?\d+(\.\d+)?$/.test(value)) return value;
  const n = Number(value);
  if (!Number.isFinite(n)) return value;
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return value;
  return String(n) === canonicalDecimal(value) ? n : value;
}

/** Rows with the values of numeric columns as JSON numbers where exact. */
export function rowsWithNumbers(
  rows: Record<string, unknown>[],
  columns: { name: string; type: string }[],
): Record<string, unknown>[] {
  const numeric = columns.filter((c) => isNumericType(c.type)).map((c) => c.name);
  if (numeric.length === 0) return rows;
  return rows.map((row) => {
    const copy = { ...row };
    for (const name of numeric) if (name in copy) copy[name] = exactNumber(copy[name]);
    return copy;
  });
}
