import { CsvError, parse } from 'csv-parse/sync';
import { malformed, type ParseResult, type PublishedRate } from './types.js';
import { isCurrencyCode, isIsoDate, rateProblem, toParsedRates } from './values.js';

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** `2025-01-03`, or `03 January 2025` as in the ECB's one-day CSV (eurofxref.csv). */
function parseDate(text: string): string | null {
  if (isIsoDate(text)) return text;
  const m = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
  if (month === 0) return null;
  const iso = `${m[3]}-${String(month).padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
  return isIsoDate(iso) ? iso : null;
}

/** Drops the single empty field the ECB's trailing comma leaves. */
function fields(record: string[]): string[] {
  return record.length > 1 && record[record.length - 1] === '' ? record.slice(0, -1) : record;
}

interface Row {
  line: number;
  row: string[];
}

/** The file's records with their lines, blank lines left out. */
function records(text: string): Row[] {
  const parsed = parse(text, { bom: true, trim: true, relax_column_count: true, info: true }) as unknown as {
    record: string[];
    info: { lines: number };
  }[];
  return parsed
    .filter(({ record }) => !(record.length === 1 && record[0] === ''))
    .map(({ record, info }) => ({ line: info.lines, row: fields(record) }));
}

/**
 * Parses the ECB history CSV (eurofxref-hist.csv: `Date,USD,JPY,...,` then one row per market day, newest
 * first, `N/A` where a currency has no rate) and the one-day CSV of the same shape. All or nothing: the first
 * problem refuses the whole file, naming its line.
 */
export function parseEcbCsv(text: string): ParseResult {
  let rows: Row[];
  try {
    rows = records(text);
  } catch (error) {
    if (error instanceof CsvError) {
      return malformed(typeof error.lines === 'number' ? error.lines : 1, `not a CSV file: ${error.message}`);
    }
    throw error;
  }
  if (rows.length === 0) return malformed(1, 'the file is empty');
  const { row: header, line: headerLine } = rows[0]!;
  if (header[0] !== 'Date') {
    return malformed(headerLine, `the header must start with "Date", found "${header[0]}"`);
  }
  const currencies = header.slice(1);
  if (currencies.length === 0) return malformed(headerLine, 'the header names no currency');
  const seenCurrency = new Set<string>();
  for (const c of currencies) {
    if (!isCurrencyCode(c)) return malformed(headerLine, `"${c}" is not a three-letter currency code`);
    if (c === 'EUR') return malformed(headerLine, 'EUR is the base of every rate and cannot be a column');
    if (seenCurrency.has(c)) return malformed(headerLine, `currency ${c} appears twice in the header`);
    seenCurrency.add(c);
  }

  const rates: PublishedRate[] = [];
  const seenDates = new Set<string>();
  for (const { line, row } of rows.slice(1)) {
    if (row.length !== header.length) {
      return malformed(
        line,
        `expected ${header.length} fields (Date and ${currencies.length} currencies), found ${row.length}`,
      );
    }
    const date = parseDate(row[0]!);
    if (!date) return malformed(line, `"${row[0]}" is not a date (YYYY-MM-DD)`);
    if (seenDates.has(date)) return malformed(line, `the date ${date} appears twice`);
    seenDates.add(date);
    for (let c = 0; c < currencies.length; c++) {
      const cell = row[c + 1]!;
      if (cell === 'N/A') continue;
      const problem =
        cell === '' ? 'is empty (the ECB writes N/A where there is no rate)' : rateProblem(cell);
      if (problem) return malformed(line, `the ${currencies[c]} rate "${cell}" ${problem}`);
      rates.push({ date, currency: currencies[c]!, rate: cell });
    }
  }
  if (seenDates.size === 0) return malformed(headerLine, 'the file has a header but no rows');
  if (rates.length === 0) return malformed(headerLine, 'every cell is N/A: the file holds no rate');
  return { ok: true, value: toParsedRates('csv', rates, seenDates.size) };
}
