import { parse } from 'csv-parse/sync';
import { type Delimiter, detectDelimiter } from './dialect.js';

export interface CsvRecord {
  /** 1-based line where the record starts (a quoted field may span lines). */
  line: number;
  values: string[];
}

export interface ParsedCsv {
  header: string[];
  records: CsvRecord[];
  delimiter: Delimiter;
}

export interface CsvDialect {
  /** Comma, semicolon or tab; detected from the header line when absent. */
  delimiter?: Delimiter;
  /** Lines before the header to skip (a bank's preamble). */
  skipLines?: number;
}

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

/**
 * Every non-blank record of CSV text (RFC 4180, any line ends, an optional BOM; quoted fields may span lines),
 * with the 1-based line where each starts, counted from the raw text of each record so that line numbers stay
 * right with CRLF line ends and multi-line fields. `firstLine` is the line number of the text's first line.
 */
export function readRecords(input: string, delimiter: Delimiter, firstLine = 1): CsvRecord[] {
  const text = input.replace(/^\uFEFF/, '');
  let parsed: { record: string[]; raw: string }[];
  try {
    parsed = parse(text, {
      bom: true,
      delimiter,
      raw: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
    }) as unknown as { record: string[]; raw: string }[];
  } catch (error) {
    const e = error as { message?: string; lines?: number };
    throw new CsvSyntaxError(e.message ?? 'the file is not valid CSV', e.lines);
  }
  const records: CsvRecord[] = [];
  let line = firstLine;
  for (const { record, raw } of parsed) {
    const start = line;
    line += (raw.match(/\r\n|\r|\n/g) ?? []).length;
    if (record.every((v) => v.trim() === '')) continue;
    records.push({ line: start, values: record });
  }
  return records;
}

/** The text after its first `skip` lines. */
export function skipLines(text: string, skip: number): string {
  let rest = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < skip; i++) {
    const end = rest.search(/\r\n|\r|\n/);
    if (end < 0) return '';
    rest = rest.slice(end + (rest.startsWith('\r\n', end) ? 2 : 1));
  }
  return rest;
}

/**
 * The header (trimmed, trailing empty names dropped) and the data records below it, without the trailing empty
 * fields the header does not have: a trailing delimiter on every line, or on most data lines only (Chase ends
 * each data row with a comma its header lacks). A lone row with one field too many stays as it is (an error).
 */
export function splitHeader(first: CsvRecord, rest: CsvRecord[]): { header: string[]; records: CsvRecord[] } {
  const header = first.values.map((h) => h.trim());
  const width = header.length;
  while (header.length > 0 && header.at(-1) === '') header.pop();
  const oneMore = (r: CsvRecord) => r.values.length === header.length + 1 && r.values.at(-1)?.trim() === '';
  const trailing = rest.filter(oneMore).length * 2 > rest.length;
  const records = rest.map((r) => {
    const values = [...r.values];
    const limit = trailing ? Math.max(width, header.length + 1) : width;
    while (values.length > header.length && values.length <= limit && values.at(-1)?.trim() === '')
      values.pop();
    return { line: r.line, values };
  });
  // Lines without a delimiter after the last row of a wider table are its footer (a rule, "共3笔记录").
  const footer = (r: CsvRecord) => header.length >= 3 && r.values.length === 1;
  let end = records.length;
  while (end > 0 && footer(records[end - 1]!)) end--;
  return { header, records: records.slice(0, end) };
}

/**
 * Parses CSV text whose first record (after `skipLines`) is the header; blank lines are skipped.
 */
export function parseCsv(input: string, dialect: CsvDialect = {}): ParsedCsv {
  const skip = dialect.skipLines ?? 0;
  const text = skipLines(input, skip);
  const delimiter = dialect.delimiter ?? detectDelimiter(text.split(/\r\n|\r|\n/, 1)[0] ?? '');
  const [first, ...rest] = readRecords(text, delimiter, 1 + skip);
  if (!first) return { header: [], records: [], delimiter };
  return { ...splitHeader(first, rest), delimiter };
}
