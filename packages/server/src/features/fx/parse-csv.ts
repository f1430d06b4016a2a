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

/** Splits one line into trimmed fields, dropping the single empty field the ECB's trailing comma leaves. */
function fields(line: string): string[] {
  const parts = line.split(',').map((f) => f.trim());
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * Parses the ECB history CSV (eurofxref-hist.csv: `Date,USD,JPY,...,` then one row per market day, newest
 * first, `N/A` where a currency has no rate) and the one-day CSV of the same shape. All or nothing: the first
 * problem refuses the whole file, naming its line.
 */
export function parseEcbCsv(text: string): ParseResult {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIndex = lines.findIndex((l) => l.trim() !== '');
  if (headerIndex < 0) return malformed(1, 'the file is empty');
  const header = fields(lines[headerIndex]!);
  const headerLine = headerIndex + 1;
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
  for (let i = headerIndex + 1; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const line = i + 1;
    const row = fields(raw);
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
