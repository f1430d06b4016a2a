import { csvField, neutraliseFormula } from '@expense/wire/csv';

export { csvField, neutraliseFormula };

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
