import type { Colours } from './colour.js';

export interface TableColumn {
  header: string;
  align?: 'left' | 'right';
  /** Never narrowed to fit the width (an id the user copies). */
  keep?: boolean;
}

export interface TableOptions {
  /** The terminal's width; columns are narrowed to fit it. Unlimited when absent (not a terminal). */
  maxWidth?: number;
  colours?: Colours;
}

const GAP = '  ';
const MIN_COLUMN = 4;

/** Display width, counting each code point as one column (control characters are made visible first). */
const width = (s: string) => [...s].length;

function truncate(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

function visible(s: string): string {
  return s.replace(/\r\n|\r|\n/g, '↵').replace(/\t/g, ' ');
}

/**
 * Column widths that fit `maxWidth`: the widest columns give up characters first, none below a few
 * characters (or its header, when narrower).
 */
export function fitWidths(natural: number[], maxWidth: number | undefined, keep: boolean[] = []): number[] {
  const widths = [...natural];
  if (maxWidth === undefined) return widths;
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * Math.max(0, widths.length - 1);
  while (total() > maxWidth) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (
        !keep[i] &&
        (widths[i] ?? 0) > MIN_COLUMN &&
        (widest === -1 || (widths[i] ?? 0) > (widths[widest] ?? 0))
      )
        widest = i;
    }
    if (widest === -1) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}

/** A plain text table: header, a rule, the rows; cells padded, numbers right-aligned, long cells cut with …. */
export function renderTable(columns: TableColumn[], rows: string[][], options: TableOptions = {}): string {
  const cells = rows.map((row) => columns.map((_, i) => visible(row[i] ?? '')));
  const natural = columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i] ?? ''))));
  const widths = fitWidths(
    natural,
    options.maxWidth,
    columns.map((c) => c.keep === true),
  );
  const pad = (s: string, i: number) => {
    const w = widths[i] ?? 0;
    const text = truncate(s, w);
    const fill = ' '.repeat(Math.max(0, w - width(text)));
    return columns[i]?.align === 'right' ? fill + text : text + fill;
  };
  const trimEnd = (line: string) => line.replace(/ +$/, '');
  const bold = options.colours?.bold ?? ((s: string) => s);
  const dim = options.colours?.dim ?? ((s: string) => s);
  const header = trimEnd(columns.map((c, i) => pad(c.header, i)).join(GAP));
  const rule = widths.map((w) => '-'.repeat(w)).join(GAP);
  const lines = [bold(header), dim(rule), ...cells.map((r) => trimEnd(r.map((c, i) => pad(c, i)).join(GAP)))];
  return `${lines.join('\n')}\n`;
}
