// The worked examples of docs/fx.md: their SQL, the tables printed after them, and the data they assume.
import { readFileSync } from 'node:fs';

const doc = readFileSync(new URL('../../../../../../docs/fx.md', import.meta.url), 'utf8');
export const csv = readFileSync(new URL('./fixtures/eurofxref-hist-excerpt.csv', import.meta.url), 'utf8');

/** The SQL block after `<!-- fx-example: name -->` and the markdown table after it (header, then rows). */
export function example(name: string): { sql: string; header: string[]; rows: string[][] } {
  const start = doc.indexOf(`<!-- fx-example: ${name} -->`);
  if (start < 0) throw new Error(`docs/fx.md has no example ${name}`);
  const rest = doc.slice(start);
  const sql = /```sql\n([\s\S]*?)```/.exec(rest)![1]!;
  const table = /\n(\|.*\|\n)+/.exec(rest.slice(rest.indexOf('```', rest.indexOf('```sql') + 6) + 3))![0];
  const cells = table
    .trim()
    .split('\n')
    .filter((l) => !/^\|[-| ]+\|$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  return { sql, header: cells[0]!, rows: cells.slice(1) };
}

export const ENTRIES: Array<[string, string, string, string, string]> = [
  ['2024-11-30T12:00:00Z', '-20.00', 'CHF', 'spend', 'food'],
  ['2024-12-24T10:00:00Z', '-45.00', 'USD', 'spend', 'books'],
  ['2024-12-25T19:30:00Z', '-12000', 'JPY', 'spend', 'food'],
  ['2024-12-28T09:00:00Z', '-80.00', 'EUR', 'spend', 'food'],
  ['2025-01-02T08:00:00Z', '2500.00', 'GBP', 'income', 'salary'],
];
