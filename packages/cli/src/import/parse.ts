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
 * Parses CSV text (RFC 4180, any line ends, an optional BOM). The first record is the header; blank lines
 * are skipped. Line numbers are counted from the raw text of each record, so they stay right with CRLF
 * line ends and with quoted fields that span lines.
 */
export function parseCsv(input: string, dialect: CsvDialect = {}): ParsedCsv {
  let text = input.replace(/^\uFEFF/, '');
  const skip = dialect.skipLines ?? 0;
  let skippedLines = 0;
  for (let i = 0; i < skip; i++) {
    const end = text.search(/\r\n|\r|\n/);
    if (end < 0) {
      text = '';
      break;
    }
    text = text.slice(end + (text.startsWith('\r\n', end) ? 2 : 1));
    skippedLines++;
  }
  const delimiter = dialect.delimiter ?? detectDelimiter(text.split(/\r\n|\r|\n/, 1)[0] ?? '');
  let parsed: { record: string[]; raw: string }[];
  try {
    parsed = parse(text, {
      bom: true,
      delimiter,
      raw: true,
      relax_column_count: true,
      skip_empty_lines: false,
    }) as unknown as { record: string[]; raw: string }[];
  } catch (error) {
    const e = error as { message?: string; lines?: number };
    throw new CsvSyntaxError(e.message ?? 'the file is not valid CSV', e.lines);
  }
  const records: CsvRecord[] = [];
  let line = 1 + skippedLines;
  for (const { record, raw } of parsed) {
    const start = line;
    line += (raw.match(/\r\n|\r|\n/g) ?? []).length;
    if (record.every((v) => v.trim() === '')) continue;
    records.push({ line: start, values: record });
  }
  const [first, ...rest] = records;
  if (!first) return { header: [], records: [], delimiter };
  // Trailing empty columns (a trailing delimiter on every line) carry nothing: drop them.
  const header = first.values.map((h) => h.trim());
  const width = header.length;
  while (header.length > 0 && header.at(-1) === '') header.pop();
  if (header.length < width) {
    for (const r of rest) {
      while (r.values.length > header.length && r.values.length <= width && r.values.at(-1)?.trim() === '')
        r.values.pop();
    }
  }
  return { header, records: rest, delimiter };
}
