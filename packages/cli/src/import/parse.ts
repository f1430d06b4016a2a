import { parse } from 'csv-parse/sync';

export interface CsvRecord {
  /** 1-based line where the record starts (a quoted field may span lines). */
  line: number;
  values: string[];
}

export interface ParsedCsv {
  header: string[];
  records: CsvRecord[];
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
export function parseCsv(text: string): ParsedCsv {
  let parsed: { record: string[]; raw: string }[];
  try {
    parsed = parse(text, {
      bom: true,
      raw: true,
      relax_column_count: true,
      skip_empty_lines: false,
    }) as unknown as { record: string[]; raw: string }[];
  } catch (error) {
    const e = error as { message?: string; lines?: number };
    throw new CsvSyntaxError(e.message ?? 'the file is not valid CSV', e.lines);
  }
  const records: CsvRecord[] = [];
  let line = 1;
  for (const { record, raw } of parsed) {
    const start = line;
    line += (raw.match(/\r\n|\r|\n/g) ?? []).length;
    if (record.every((v) => v.trim() === '')) continue;
    records.push({ line: start, values: record });
  }
  const [first, ...rest] = records;
  if (!first) return { header: [], records: [] };
  return { header: first.values.map((h) => h.trim()), records: rest };
}
