// What the Import page shows a person to correct recognition: the file's columns (header and two sample values),
// what each holds as the import core read it, how the first row's date reads in each format and how its amount
// reads either way round; and the person's choices turned into the import core's own options (`map`, `debit` and
// `credit`, `columns`, `charges`, `invertSign`). Pure: no DOM, no network.

/** What a column can hold, in a person's words, and the ledger field it feeds (none: read or left alone). */
/** @type {{ value: string, label: string, field?: string, word?: string }[]} */
export const COLUMN_CHOICES = [
  { value: 'date', label: 'Date', field: 'ts', word: 'date' },
  { value: 'amount', label: 'Amount', field: 'amount', word: 'amount' },
  { value: 'out', label: 'Money out' },
  { value: 'in', label: 'Money in' },
  { value: 'payee', label: 'Payee', field: 'counterparty', word: 'payee' },
  { value: 'note', label: 'Note', field: 'note', word: 'note' },
  { value: 'currency', label: 'Currency', field: 'currency', word: 'currency' },
  { value: 'category', label: 'Category', field: 'category', word: 'category' },
  { value: 'balance', label: 'Balance' },
  { value: 'ignore', label: 'Ignore' },
];

/** The import core's names for what a column feeds (its notes: `Betrag → amount`) as this panel's choices. */
/** @type {Record<string, string>} */
const CHOICE_OF_FIELD = {
  ts: 'date',
  amount: 'amount',
  counterparty: 'payee',
  note: 'note',
  currency: 'currency',
  category: 'category',
  'money out': 'out',
  'money in': 'in',
  balance: 'balance',
};

/**
 * One line's cells (quotes and doubled quotes honoured; a line is enough for a header and samples).
 * @param {string} line
 * @param {string} delimiter
 */
export function cellsOf(line, delimiter) {
  /** @type {string[]} */
  const cells = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delimiter) {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

/** A cell that reads as a value (a date, a number), not as a column's name. @param {string} cell */
const looksLikeValue = (cell) =>
  /\d/.test(cell) && /^[\s\d.,:/+\-()€$£'A-Z]*$/i.test(cell) && !/^[a-z]+$/i.test(cell);

/**
 * @typedef {object} FileColumns
 * @property {string} delimiter
 * @property {boolean} headerless the first table line is a row: the columns are named "Column 1", …
 * @property {string[]} header
 * @property {string[][]} samples each column's first two values
 * @property {string[]} first the first row's cells
 */

/**
 * The table of a CSV file: its delimiter, the header line (the first line as wide as the lines under it; lines
 * above it, an account block, are passed over), and the first two rows.
 * @param {string} text
 * @returns {FileColumns | null}
 */
export function readColumns(text) {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .slice(0, 200)
    .filter((l) => l.trim() !== '');
  if (lines.length === 0) return null;
  const count = (/** @type {string} */ l, /** @type {string} */ d) => cellsOf(l, d).length;
  const delimiter = [';', '\t', ',', '|']
    .map((d) => ({ d, n: lines.slice(0, 20).reduce((most, l) => Math.max(most, count(l, d)), 0) }))
    .reduce((best, c) => (c.n > best.n ? c : best)).d;
  const widths = lines.map((l) => count(l, delimiter));
  const width = Math.max(...widths);
  const at = widths.indexOf(width);
  const cells = cellsOf(lines[at] ?? '', delimiter);
  const headerless = cells.filter(looksLikeValue).length >= Math.max(1, Math.ceil(cells.length / 3));
  const rows = lines
    .slice(headerless ? at : at + 1)
    .map((l) => cellsOf(l, delimiter))
    .filter((r) => r.length === width)
    .slice(0, 2);
  const header = headerless ? cells.map((_, i) => `Column ${i + 1}`) : cells;
  return {
    delimiter,
    headerless,
    header,
    samples: header.map((_, i) => rows.map((r) => r[i] ?? '')),
    first: rows[0] ?? [],
  };
}

/**
 * What the import core read each column as: the columns its notes name (`…: Datum → ts, Betrag → amount`), or a
 * bank's layout (its preset's column names). Unnamed columns are "ignore".
 * @param {string[]} header
 * @param {string[]} notes
 * @param {{ columns: Record<string, readonly string[] | undefined>, debit?: readonly string[], credit?: readonly string[] } | undefined} preset
 * @returns {string[]}
 */
export function recognisedChoices(header, notes, preset) {
  const choices = header.map(() => 'ignore');
  const key = (/** @type {string} */ s) =>
    s
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_');
  const set = (/** @type {string} */ name, /** @type {string | undefined} */ choice) => {
    const i = header.findIndex((h) => key(h) === key(name));
    if (i !== -1 && choice && choices[i] === 'ignore') choices[i] = choice;
  };
  if (preset) {
    for (const [field, names] of Object.entries(preset.columns))
      for (const name of names ?? []) set(name, CHOICE_OF_FIELD[field]);
    for (const name of preset.debit ?? []) set(name, 'out');
    for (const name of preset.credit ?? []) set(name, 'in');
    return choices;
  }
  const read = notes.find((n) => n.startsWith('Recognised:') && n.includes(' → '));
  const list = read?.slice(read.indexOf(': ', read.indexOf(')')) + 2).replace(/\.$/, '') ?? '';
  for (const pair of list.split(/, (?=[^,]*? → )/)) {
    const arrow = pair.lastIndexOf(' → ');
    if (arrow > 0) set(pair.slice(0, arrow), CHOICE_OF_FIELD[pair.slice(arrow + 3)]);
  }
  return choices;
}

/**
 * A headerless file's columns as the reader took them, matched on its first row: the column whose value gives the
 * row's date, amount (either sign), payee or note.
 * @param {FileColumns} file
 * @param {{ ts: string, amount: string, counterparty: string | null, note: string | null, currency: string } | undefined} row
 * @param {readonly string[]} formats
 * @returns {string[]}
 */
export function headerlessChoices(file, row, formats) {
  const choices = file.header.map(() => 'ignore');
  if (!row) return choices;
  const number = (/** @type {string} */ v) =>
    Math.abs(
      Number(
        v
          .replace(/[^\d.,]/g, '')
          .replace(/[.,](?=\d{3}\b)/g, '')
          .replace(',', '.'),
      ),
    );
  const day = row.ts.slice(0, 10);
  const take = (/** @type {string} */ choice, /** @type {(v: string) => boolean} */ fits) => {
    const i = file.first.findIndex((v, j) => choices[j] === 'ignore' && v !== '' && fits(v));
    if (i !== -1) choices[i] = choice;
  };
  take('date', (v) => formats.some((f) => dateIn(v, f) === day));
  take('amount', (v) => /\d/.test(v) && number(v) === Math.abs(Number(row.amount)));
  if (row.counterparty) take('payee', (v) => v === row.counterparty);
  if (row.note) take('note', (v) => v === row.note);
  take('currency', (v) => v === row.currency);
  return choices;
}

/**
 * @typedef {object} ColumnOptions
 * @property {string[]} [map] `column=field`, the columns the person chose
 * @property {string} [debit]
 * @property {string} [credit]
 * @property {string} [columns] a headerless file's columns in order
 * @property {'out' | 'in'} [lacking] money out without money in (or the reverse): not sent until both are chosen
 */

/**
 * The person's choices as the import core's options: only the columns they changed are mapped, so the rest is read
 * as recognised (and the signs still checked against a balance column).
 * @param {FileColumns} file
 * @param {string[]} choices
 * @param {Set<number>} changed
 * @returns {ColumnOptions}
 */
export function columnOptions(file, choices, changed) {
  if (changed.size === 0) return {};
  if (file.headerless)
    return {
      columns: choices.map((c) => COLUMN_CHOICES.find((k) => k.value === c)?.word ?? '-').join(','),
    };
  /** @type {ColumnOptions} */
  const options = {};
  const map = [...changed]
    .map((i) => ({ name: file.header[i], field: COLUMN_CHOICES.find((k) => k.value === choices[i])?.field }))
    .filter((m) => m.name !== undefined && m.field !== undefined)
    .map((m) => `${m.name}=${m.field}`);
  if (map.length) options.map = map;
  const touchedMoney = [...changed].some((i) => ['out', 'in'].includes(choices[i] ?? ''));
  if (touchedMoney && !choices.includes('amount')) {
    const out = choices.indexOf('out');
    const inn = choices.indexOf('in');
    if (out === -1) options.lacking = 'out';
    else if (inn === -1) options.lacking = 'in';
    else {
      options.debit = file.header[out];
      options.credit = file.header[inn];
    }
  }
  return options;
}

/**
 * The Signs choice as options: "charges are positive" flips the amounts; when the person maps the amount column
 * the core takes it as written, so the flip is said outright.
 * @param {'' | 'negative' | 'positive'} signs
 * @param {ColumnOptions} columns
 * @returns {{ charges?: 'positive' | 'negative', invertSign?: boolean }}
 */
export function signOptions(signs, columns) {
  if (!signs || columns.debit !== undefined) return {};
  const amountMapped = (columns.map ?? []).some((m) => m.endsWith('=amount'));
  return signs === 'positive' && amountMapped
    ? { charges: 'positive', invertSign: true }
    : { charges: signs };
}

const MONTHS = [
  /^(jan|ene|gen|sty)/,
  /^(feb|fév|fev|lut)/,
  /^(mar|mär|mrt|maa)/,
  /^(apr|avr|abr|kwi)/,
  /^(may|mai|mei|mag|maj)/,
  /^(jun|jui?n|giu|cze)/,
  /^(jul|juil|lug|lip)/,
  /^(aug|aoû|aou|ago|sie)/,
  /^(sep|set|wrz)/,
  /^(oct|okt|ott|out|paź|paz)/,
  /^(nov|lis)/,
  /^(dec|dez|déc|dic|gru)/,
];

/**
 * The calendar day a date reads as in one of the import core's formats, as "YYYY-MM-DD"; null when it does not fit.
 * @param {string} value
 * @param {string} format
 * @returns {string | null}
 */
export function dateIn(value, format) {
  const v = value.trim().replace(/\s+\d{1,2}:\d{2}(:\d{2})?.*$/, '');
  /** @type {[number, number, number] | null} */
  let ymd = null;
  const digits = format.replace(/[^DMY]/g, '');
  if (format.includes('MMM')) {
    const m = /^(\d{1,2})[\s.-]+([^\s\d.,-]+)\.?[\s,.-]+(\d{4})$/.exec(v);
    const n = /^([^\s\d.,-]+)\.?[\s.-]+(\d{1,2}),?[\s.-]+(\d{4})$/.exec(v);
    const dayFirst = format.startsWith('DD');
    const parts = dayFirst ? m && [m[3], m[2], m[1]] : n && [n[3], n[1], n[2]];
    const month = parts ? MONTHS.findIndex((re) => re.test(String(parts[1]).toLowerCase())) + 1 : 0;
    if (parts && month > 0) ymd = [Number(parts[0]), month, Number(parts[2])];
  } else if (format === 'YYYYMMDD') {
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
    if (m) ymd = [Number(m[1]), Number(m[2]), Number(m[3])];
  } else {
    const sep = format[digits.startsWith('YYYY') ? 4 : 2] ?? '';
    const parts = v.split(sep);
    if (parts.length === 3 && parts.every((p) => /^\d+$/.test(p))) {
      const order = format.split(sep).map((p) => p[0]);
      const get = (/** @type {string} */ c) => Number(parts[order.indexOf(c)]);
      const year = String(parts[order.indexOf('Y')]);
      if (year.length === 4) ymd = [get('Y'), get('M'), get('D')];
    }
  }
  if (!ymd) return null;
  const [y, mo, d] = ymd;
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

/**
 * How a raw amount reads as the file writes it: negative (money out) or not.
 * @param {string} value
 */
export function readsNegative(value) {
  const v = value.trim();
  return /^-|^\(.*\)$|-$|\bDR\b|\bS$/i.test(v) || /^−/.test(v);
}
