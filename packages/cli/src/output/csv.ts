/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF, or starts/ends with a space. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export interface CsvOptions {
  /** Write the header line (default true). */
  header?: boolean;
  /** End lines with CRLF as RFC 4180 has it, instead of LF as Unix tools expect (default false). */
  crlf?: boolean;
}

/** CSV with a header line and LF line ends (CRLF with `crlf`); fields quoted as RFC 4180 says. */
export function renderCsv(header: string[], rows: string[][], options: CsvOptions = {}): string {
  const eol = options.crlf ? '\r\n' : '\n';
  const lines = options.header === false ? rows : [header, ...rows];
  return lines.map((r) => `${r.map(csvField).join(',')}${eol}`).join('');
}
