/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF, or starts/ends with a space. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A decimal number, signed or not, with an optional exponent: -12.50, +3, -1e3, .5 */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A cell a spreadsheet opens as text: one that starts with =, +, -, @, tab or CR and is not a number gets a `'`
 * in front (OWASP's rule), so that text from a bank file (=HYPERLINK(...), +cmd|...) is never run as a formula.
 * csv-stringify's `escape_formulas` would also prefix negative amounts such as -12.50.
 */
export function neutraliseFormula(value: string): string {
  return FORMULA_START.test(value) && !NUMBER.test(value) ? `'${value}` : value;
}

/** The help of --raw, where a command writes CSV. */
export const RAW_HELP =
  "CSV: write cells unchanged (by default a cell starting with =, +, -, @, tab or CR that is not a number gets a ' in front, so a spreadsheet does not run it as a formula)";

export interface CsvOptions {
  /** Write the header line (default true). */
  header?: boolean;
  /** End lines with CRLF as RFC 4180 has it, instead of LF as Unix tools expect (default false). */
  crlf?: boolean;
  /** Write every cell unchanged, formulas too (default false: neutraliseFormula). */
  raw?: boolean;
}

/** CSV with a header line and LF line ends (CRLF with `crlf`); fields quoted as RFC 4180 says. */
export function renderCsv(header: string[], rows: string[][], options: CsvOptions = {}): string {
  const eol = options.crlf ? '\r\n' : '\n';
  const lines = options.header === false ? rows : [header, ...rows];
  const cell = options.raw ? csvField : (value: string) => csvField(neutraliseFormula(value));
  return lines.map((r) => `${r.map(cell).join(',')}${eol}`).join('');
}
