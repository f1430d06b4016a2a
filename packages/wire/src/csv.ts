/**
 * CSV cells as the CLI's `--format csv`, `expense report --format csv` and the server's CSV export write them: one
 * home for the quoting and for the spreadsheet-formula rule.
 */

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
