import { describe, expect, it } from 'vitest';
import { colourEnabled, createColours } from '../src/output/colour.js';
import { renderCsv } from '../src/output/csv.js';
import { exactNumber } from '../src/output/numbers.js';
import { renderRows, truncationNotice } from '../src/output/sql-result.js';
import { fitWidths, renderTable } from '../src/output/table.js';

describe('renderTable', () => {
  it('pads cells, right-aligns numbers and draws a rule', () => {
    const out = renderTable(
      [{ header: 'account' }, { header: 'balance', align: 'right' }],
      [
        ['chase', '-12.50'],
        ['cash', '3.00'],
      ],
    );
    expect(out).toBe('account  balance\n-------  -------\nchase     -12.50\ncash        3.00\n');
  });

  it('fits the terminal by narrowing the widest column and marking the cut', () => {
    const out = renderTable([{ header: 'id' }, { header: 'note' }], [['1', 'x'.repeat(50)]], {
      maxWidth: 20,
    });
    const lines = out.trimEnd().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(20);
    expect(lines[2]).toMatch(/…$/);
  });

  it('keeps control characters from breaking rows', () => {
    const out = renderTable([{ header: 'note' }], [['a\nb\tc']]);
    expect(out.split('\n')).toHaveLength(4);
  });

  it('fitWidths stops at a minimum', () => {
    expect(fitWidths([10, 10], 5)).toEqual([4, 4]);
    expect(fitWidths([3, 8], undefined)).toEqual([3, 8]);
  });
});

describe('renderCsv', () => {
  it('quotes what RFC 4180 needs quoted', () => {
    expect(
      renderCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          ['line\nbreak', 'plain'],
        ],
      ),
    ).toBe('a,b\n"x,y","say ""hi"""\n"line\nbreak",plain\n');
    expect(renderCsv(['a'], [['1']], { crlf: true, header: false })).toBe('1\r\n');
  });
});

describe('renderRows', () => {
  const statement = {
    index: 0,
    command: 'SELECT' as const,
    columns: [
      { name: 'account_id', type: 'text' },
      { name: 'total', type: 'numeric' },
    ],
    rows: [
      { account_id: 'cash', total: '1.50' },
      { account_id: null, total: '10.00' },
    ],
    rowCount: 250,
    returnedRowCount: 2,
    totalRowCount: 250,
    truncated: true,
  };
  it('renders table, csv and json', () => {
    expect(renderRows(statement, 'table')).toBe(
      'account_id  total\n----------  -----\ncash         1.50\n            10.00\n',
    );
    expect(renderRows(statement, 'csv')).toBe('account_id,total\ncash,1.50\n,10.00\n');
    expect(JSON.parse(renderRows(statement, 'json'))).toEqual(statement.rows);
  });
  it('says how many of how many rows are shown', () => {
    expect(truncationNotice(statement, 100)).toMatch(/^Showing 2 of 250 rows/);
    expect(truncationNotice({ ...statement, truncated: false })).toBeUndefined();
  });
});

describe('colour', () => {
  it('is on only for a terminal without NO_COLOR', () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(createColours(false).red('x')).toBe('x');
    expect(createColours(true).red('x')).toBe('\u001b[31mx\u001b[39m');
  });
});

describe('exactNumber', () => {
  it('turns exact numeric strings into numbers and keeps the rest', () => {
    expect(exactNumber('-12.50')).toBe(-12.5);
    expect(exactNumber('0.1')).toBe(0.1);
    expect(exactNumber('42')).toBe(42);
    expect(exactNumber('007')).toBe(7);
    expect(exactNumber('9007199254740993')).toBe('9007199254740993');
    expect(exactNumber('12345678901234567.5')).toBe('12345678901234567.5');
    expect(exactNumber('0.1000000000000000055511151231257827')).toBe('0.1000000000000000055511151231257827');
    expect(exactNumber('abc')).toBe('abc');
    expect(exactNumber(null)).toBe(null);
  });
});
