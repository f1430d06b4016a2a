/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF, or starts/ends with a space. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** RFC 4180 CSV with a header line and CRLF line ends. */
export function renderCsv(header: string[], rows: string[][]): string {
  return [header, ...rows].map((r) => `${r.map(csvField).join(',')}\r\n`).join('');
}
