import type { SqlResultData, StatementResult } from '@expense/wire';
import { cellText, isNumericType } from './cells.js';
import type { Colours } from './colour.js';
import { renderCsv } from './csv.js';
import { rowsWithNumbers } from './numbers.js';
import { renderTable } from './table.js';

export type RowFormat = 'table' | 'json' | 'csv';

export interface RowOptions {
  maxWidth?: number;
  colours?: Colours;
  /** Print the header (column names); false is psql's -t. */
  header?: boolean;
  /** CSV lines end in CRLF (default LF). */
  crlf?: boolean;
  /** CSV: cells unchanged, without the `'` that keeps a spreadsheet from running them as formulas. */
  raw?: boolean;
  /** psql's -A: one line per row, fields joined by this separator, no padding. */
  unaligned?: string;
  /** psql's -x: one block per row, a line per column. */
  expanded?: boolean;
  /** JSON: numeric columns as JSON numbers where exact. */
  numbers?: boolean;
}

function columnsOf(statement: StatementResult): { name: string; type: string }[] {
  if (statement.columns.length) return statement.columns;
  const first = statement.rows[0];
  return first ? Object.keys(first).map((name) => ({ name, type: 'unknown' })) : [];
}

function renderExpanded(header: string[], cells: string[][], separator: string | undefined): string {
  if (separator !== undefined) {
    // Unaligned and expanded (psql -A -x): name<sep>value, a blank line between records.
    return cells.map((row) => `${row.map((v, i) => `${header[i]}${separator}${v}`).join('\n')}\n`).join('\n');
  }
  const nameWidth = Math.max(0, ...header.map((h) => [...h].length));
  return cells
    .map((row, r) => {
      const title = `-[ RECORD ${r + 1} ]`;
      const lines = row.map(
        (v, i) => `${header[i]!.padEnd(nameWidth)} | ${v.replace(/\r?\n/g, '\n'.padEnd(nameWidth + 4))}`,
      );
      const rule = title.padEnd(Math.max(title.length, ...lines.map((l) => [...l].length)), '-');
      return `${rule}\n${lines.join('\n')}\n`;
    })
    .join('');
}

/** The rows of one statement as a table, CSV, a JSON array of objects, unaligned lines or expanded blocks. */
export function renderRows(statement: StatementResult, format: RowFormat, options: RowOptions = {}): string {
  const columns = columnsOf(statement);
  if (format === 'json') {
    const rows = options.numbers ? rowsWithNumbers(statement.rows, columns) : statement.rows;
    return `${JSON.stringify(rows, null, 2)}\n`;
  }
  const header = columns.map((c) => c.name);
  const cells = statement.rows.map((row) => columns.map((c) => cellText(row[c.name])));
  if (format === 'csv')
    return renderCsv(header, cells, {
      header: options.header !== false,
      crlf: options.crlf === true,
      raw: options.raw === true,
    });
  if (options.expanded) return renderExpanded(header, cells, options.unaligned);
  if (options.unaligned !== undefined) {
    const sep = options.unaligned;
    const lines = options.header === false ? cells : [header, ...cells];
    return lines.map((r) => `${r.join(sep)}\n`).join('');
  }
  const table = renderTable(
    columns.map((c) => ({ header: c.name, align: isNumericType(c.type) ? 'right' : 'left' })),
    cells,
    options,
  );
  if (options.header !== false) return table;
  // Without the header: drop the header and its rule (the first two lines).
  return table.split('\n').slice(2).join('\n');
}

/** "Showing 100 of 250 rows ..." when the server's row cap cut the result. */
export function truncationNotice(statement: StatementResult, limit?: number): string | undefined {
  if (!statement.truncated) return undefined;
  return `Showing ${statement.returnedRowCount} of ${statement.totalRowCount} rows${
    limit ? ` (the server returns at most ${limit} rows per statement)` : ''
  }; narrow the query or page with LIMIT and OFFSET to see the rest.`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line per statement: "INSERT: 3 rows", "SELECT: 12 rows". */
export function effectLines(data: SqlResultData): string[] {
  return data.statements.map((s) => {
    const verb = s.command === 'SELECT' ? 'returned' : data.committed ? 'affected' : 'would affect';
    return `${s.index + 1}. ${s.command}: ${verb} ${plural(s.rowCount, 'row')}`;
  });
}
