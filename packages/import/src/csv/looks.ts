import { DATE_FORMATS, dateIn, normaliseAmount } from './dialect.js';

/** What a cell of a bank export looks like, from its text alone (pure). */

const DATE =
  /^(?:\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}([./-])\d{1,2}\1(?:\d{2}|\d{4})\.?(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?)$/;

const WORDY_DATE =
  /^\d{1,2}[\s./-]+\p{L}{3,}\.?[\s./-]+\d{2,4}$|^\p{L}{3,}\.?\s+\d{1,2},?\s+\d{4}$|^\d{8}$|^\d{4}\s*[/.年년]\s*\d{1,2}\s*[/.月월]\s*\d{1,2}(?:\s*[日일])?(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?$/u;

export const looksLikeDate = (cell: string): boolean => {
  const s = cell.trim();
  if (DATE.test(s)) return true;
  return WORDY_DATE.test(s) && DATE_FORMATS.some((f) => dateIn(s, f) !== undefined);
};

/** A money amount as banks write it: signs, parentheses, currency symbols, thousands separators, either decimal mark. */
const AMOUNT =
  /^[(+-]?\s*[$€£¥]?\s*-?\d{1,3}(?:[.,'\u00a0 ]?\d{3})*(?:[.,]\d{1,4})?\s*[$€£¥]?\)?(?:\s*[A-Z]{3})?$/;

export const looksLikeAmount = (cell: string): boolean => {
  const s = cell.trim();
  if (s === '' || looksLikeDate(s)) return false;
  return (
    AMOUNT.test(s) ||
    (/\d/.test(s) &&
      s.length <= 24 &&
      (normaliseAmount(s, false, true) !== undefined || normaliseAmount(s, true, true) !== undefined))
  );
};

/** Whether a row looks like data rather than a header: it has a date or an amount in it. */
export const looksLikeData = (values: readonly string[]): boolean =>
  values.some((v) => looksLikeDate(v)) || values.filter((v) => looksLikeAmount(v)).length >= 1;

/**
 * Whether amounts use a decimal comma, from their text: a comma followed by one or two digits at the end
 * (`-4,50`, `1.234,56`) says yes, a dot followed by one or two digits says no; undefined when nothing tells
 * (whole numbers, `1.234`).
 */
export function detectDecimalComma(
  values: readonly string[],
  options: { minorDigits?: number | undefined } = {},
): boolean | undefined {
  let comma = 0;
  let dot = 0;
  // Whole amounts grouped by thousands (`1.325.450`, `1,325,450`): the mark between the groups is not the decimal one.
  // Said only when no amount has decimals. One group (`24.550`) is a decimal of a currency with three (a Kuwaiti
  // dinar's), so it counts only when the currency is not one of those and two amounts or more say it.
  let dotGroups = 0;
  let commaGroups = 0;
  let dotGroup = 0;
  let commaGroup = 0;
  for (const raw of values) {
    const s = raw.replace(/[^\d.,]/g, '');
    if (/,\d{1,2}$/.test(s)) comma++;
    else if (/\.\d{1,2}$/.test(s)) dot++;
    else if (/^\d{1,3}(?:\.\d{3}){2,}$/.test(s)) dotGroups++;
    else if (/^\d{1,3}(?:,\d{3}){2,}$/.test(s)) commaGroups++;
    else if (/^\d{1,3}\.\d{3}$/.test(s)) dotGroup++;
    else if (/^\d{1,3},\d{3}$/.test(s)) commaGroup++;
  }
  if (options.minorDigits !== 3) {
    if (dotGroup >= 2) dotGroups += dotGroup;
    if (commaGroup >= 2) commaGroups += commaGroup;
  }
  if (comma === dot) return dotGroups === commaGroups ? undefined : dotGroups > commaGroups;
  return comma > dot;
}
