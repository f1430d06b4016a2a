import type { SqlResultData, StatementResult } from '@expense/wire';
import { cellText, isNumericType } from './cells.js';
import type { Colours } from './colour.js';
import { renderCsv } from './csv.js';
import { renderTable } from './table.js';

export type RowFormat = 'table' | 'json' | 'csv';

function columnsOf(statement: StatementResult): { name: string; type: string }[] {
  if (statement.columns.length) return statement.columns;
  const first = statement.rows[0];
  return first ? Object.keys(first).map((name) => ({ name, type: 'unknown' })) : [];
}

/** The rows of one statement as a table, CSV or a JSON array of objects. */
export function renderRows(
  statement: StatementResult,
  format: RowFormat,
  options: { maxWidth?: number; colours?: Colours } = {},
): string {
  const columns = columnsOf(statement);
  if (format === 'json') return `${JSON.stringify(statement.rows, null, 2)}\n`;
  const cells = statement.rows.map((row) => columns.map((c) => cellText(row[c.name])));
  if (format === 'csv')
    return renderCsv(
      columns.map((c) => c.name),
      cells,
    );
  return renderTable(
    columns.map((c) => ({ header: c.name, align: isNumericType(c.type) ? 'right' : 'left' })),
    cells,
    options,
  );
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
