import { type Delimiter, detectDelimiter } from './dialect.js';
import { looksLikeData } from './looks.js';
import { normalise } from './mapping.js';
import { type CsvRecord, readRecords, skipLines, splitHeader } from './parse.js';
import { PRESET_NAMES, PRESETS, type Preset, type PresetName } from './presets.js';
import { headerWords } from './words.js';

/**
 * Finding the table in a bank export (pure: text in, table out): the delimiter, the header row below any
 * preamble or summary block, or no header at all, and the bank whose layout it is.
 */

const DELIMITERS: Delimiter[] = [',', ';', '\t', '|'];
/** How far down a file a header row is looked for (ING Germany's preamble is 14 lines). */
const HEADER_SEARCH_RECORDS = 100;

export interface LocatedTable {
  delimiter: Delimiter;
  /** The header's names; for a headerless file, the names given by `--columns` or by the preset. */
  header: string[];
  headerless: boolean;
  /** 1-based line of the header row (undefined for a headerless file). */
  headerLine: number | undefined;
  records: CsvRecord[];
}

export interface NamedPreset {
  name: PresetName;
  preset: Preset;
}

export interface Recognition {
  table: LocatedTable;
  /** The bank whose layout the file has (recognised, or the one given), if any. */
  bank: NamedPreset | undefined;
  /** True when the bank was recognised from the file rather than given. */
  recognised: boolean;
}

export interface RecogniseOptions {
  delimiter?: Delimiter | undefined;
  /** Lines before the header, as given (`--skip-lines`): no search. */
  skipLines?: number | undefined;
  /** The preset given (`--preset`); null to recognise none (`--no-preset`); undefined to recognise. */
  preset?: NamedPreset | null | undefined;
  /** Names for the columns of a headerless file (`--columns`). */
  columns?: readonly string[] | undefined;
}

export class NotThatLayout extends Error {
  constructor(readonly preset: NamedPreset) {
    super(`not a ${preset.name} export`);
  }
}

function recordsFor(text: string, delimiter: Delimiter, firstLine: number): CsvRecord[] | undefined {
  try {
    return readRecords(text, delimiter, firstLine);
  } catch {
    return undefined;
  }
}

/** True when every name of the signature is in the row (case and spacing ignored). */
function hasSignature(row: readonly string[], signature: readonly string[]): boolean {
  const names = new Set(row.map(normalise));
  return signature.every((name) => names.has(normalise(name)));
}

/** Width of a record, not counting one trailing empty field (a trailing delimiter). */
const width = (r: CsvRecord) =>
  r.values.length > 1 && r.values.at(-1)?.trim() === '' ? r.values.length - 1 : r.values.length;
/** Two records of one table: as wide, or as many fields (a last column empty on some rows). */
const sameShape = (a: CsvRecord, b: CsvRecord) =>
  width(a) === width(b) ||
  (a.values.length === b.values.length &&
    filledMost(a) &&
    filledMost(b) &&
    Math.abs(width(a) - width(b)) <= 1);
/** Most of a record's fields hold something (a data row, not a title line padded with delimiters). */
const filledMost = (r: CsvRecord) => r.values.filter((v) => v.trim() !== '').length * 2 > r.values.length;

/**
 * Where the table is: the runs of consecutive records of one width (at least 2 columns), the one that starts at
 * (or just below) a row of header words first (a preamble or account block can be longer than a short table),
 * then the longest, then the widest.
 */
function longestRun(
  records: CsvRecord[],
): { start: number; length: number; width: number; headed: boolean } | undefined {
  let best: { start: number; length: number; width: number; headed: boolean } | undefined;
  const score = (r: { length: number; width: number; headed: boolean }) =>
    (r.headed ? 1e9 : 0) + r.length * 1000 + r.width;
  let start = 0;
  for (let i = 1; i <= records.length; i++) {
    if (i < records.length && sameShape(records[i]!, records[start]!)) continue;
    const w = width(records[start]!);
    const length = i - start;
    const headed =
      headerWords(records[start]!.values) >= 2 ||
      (start > 0 && headerWords(records[start - 1]!.values) >= 2 && length > 1);
    const run = { start, length, width: w, headed };
    if (w >= 2 && (!best || score(run) > score(best))) best = run;
    start = i;
  }
  return best;
}

function headerlessTable(records: CsvRecord[], delimiter: Delimiter, names: readonly string[]): LocatedTable {
  const rows = records.filter((r) => width(r) === names.length || r.values.length === names.length);
  return {
    delimiter,
    header: [...names],
    headerless: true,
    headerLine: undefined,
    records: splitHeader({ line: 0, values: [...names] }, rows).records,
  };
}

/** A headerless preset's shape: every record as wide as its columns, with its marker. */
function fitsHeaderless(records: CsvRecord[], preset: Preset): boolean {
  const shape = preset.headerless;
  if (!shape || records.length === 0) return false;
  return records.every(
    (r) =>
      width(r) === shape.columns.length &&
      (!shape.marker || r.values[shape.marker.index]?.trim() === shape.marker.value),
  );
}

/**
 * Finds the table and the bank. With `skipLines` the header is the first record after them (as before); with
 * `columns` the file has no header. Otherwise each delimiter is tried: a preset's header signature anywhere in
 * the first hundred records wins (the most specific one), then a headerless preset's shape, then the longest run
 * of equally wide records, whose first record is the header unless it looks like data.
 * Throws NotThatLayout when a preset was given and the file is not in its layout.
 */
export function recognise(text: string, options: RecogniseOptions = {}): Recognition {
  const given = options.preset ?? undefined;
  const delimiters = options.delimiter
    ? [options.delimiter]
    : given?.preset.delimiter
      ? [given.preset.delimiter]
      : [...DELIMITERS];
  const skip = options.skipLines;
  const body = skip === undefined ? text : skipLines(text, skip);
  const firstLine = 1 + (skip ?? 0);
  // Below a preamble skipped by count, the header line says the delimiter.
  if (skip !== undefined && delimiters.length > 1)
    delimiters.splice(0, delimiters.length, detectDelimiter(body.split(/\r\n|\r|\n/, 1)[0] ?? ''));
  // Each delimiter is tried on the head of the file only; the whole file is parsed once, with the one chosen.
  const head = headOf(body);
  const parsed = delimiters
    .map((delimiter) => ({
      delimiter,
      records:
        head === body
          ? recordsFor(body, delimiter, firstLine)
          : (recordsFor(head, delimiter, firstLine) ?? recordsFor(body, delimiter, firstLine)),
    }))
    .filter((p): p is { delimiter: Delimiter; records: CsvRecord[] } => p.records !== undefined);
  if (parsed.length === 0) {
    // Not CSV with any delimiter: let the caller's parse say why, with the line.
    readRecords(body, delimiters[0]!, firstLine);
  }
  const whole = new Map<Delimiter, CsvRecord[]>(
    head === body ? parsed.map((p) => [p.delimiter, p.records]) : [],
  );
  const all = (delimiter: Delimiter): CsvRecord[] => {
    let records = whole.get(delimiter);
    if (!records) {
      records = readRecords(body, delimiter, firstLine);
      whole.set(delimiter, records);
    }
    return records;
  };
  /** The records of the whole file from the one whose line is `line`. */
  const from = (delimiter: Delimiter, line: number) => {
    const records = all(delimiter);
    return records.slice(
      Math.max(
        0,
        records.findIndex((r) => r.line === line),
      ),
    );
  };
  const columns = options.columns ?? (given?.preset.headerless ? given.preset.headerless.columns : undefined);
  if (columns) {
    const best = pickBy(parsed, (p) => p.records.filter((r) => width(r) === columns.length).length);
    return {
      table: headerlessTable(all(best.delimiter), best.delimiter, columns),
      bank: given,
      recognised: false,
    };
  }
  if (skip !== undefined) {
    const p = parsed[0]!;
    const [first, ...rest] = all(p.delimiter);
    const table: LocatedTable = first
      ? {
          delimiter: p.delimiter,
          ...splitHeader(first, rest),
          headerless: false,
          headerLine: first.line,
        }
      : { delimiter: p.delimiter, header: [], records: [], headerless: false, headerLine: undefined };
    return { table, bank: given, recognised: false };
  }

  const candidates: NamedPreset[] =
    options.preset === null
      ? []
      : given
        ? [given]
        : PRESET_NAMES.map((name) => ({ name, preset: PRESETS[name] as Preset }));
  let found: { preset: NamedPreset; delimiter: Delimiter; index: number; score: number } | undefined;
  for (const { delimiter, records } of parsed) {
    const limit = Math.min(records.length, HEADER_SEARCH_RECORDS);
    for (let index = 0; index < limit; index++) {
      for (const candidate of candidates) {
        for (const signature of candidate.preset.signatures ?? []) {
          if (!hasSignature(records[index]!.values, signature)) continue;
          if (
            !found ||
            signature.length > found.score ||
            (signature.length === found.score && index < found.index)
          )
            found = { preset: candidate, delimiter, index, score: signature.length };
        }
      }
    }
  }
  if (found) {
    const header = parsed.find((p) => p.delimiter === found.delimiter)!.records[found.index]!;
    return {
      table: {
        delimiter: found.delimiter,
        ...splitHeader(header, from(found.delimiter, header.line).slice(1)),
        headerless: false,
        headerLine: header.line,
      },
      bank: found.preset,
      recognised: given === undefined,
    };
  }
  for (const candidate of candidates) {
    if (!candidate.preset.headerless) continue;
    for (const { delimiter, records } of parsed) {
      if (fitsHeaderless(records, candidate.preset))
        return {
          table: headerlessTable(all(delimiter), delimiter, candidate.preset.headerless!.columns),
          bank: candidate,
          recognised: given === undefined,
        };
    }
  }
  if (given?.preset.signatures || given?.preset.headerless) throw new NotThatLayout(given);

  // No bank's layout: the longest run of equally wide records is the table.
  const runs = parsed.map((p) => ({ ...p, run: longestRun(p.records) }));
  const best = pickBy(runs, (p) =>
    p.run ? (p.run.headed ? 1e9 : 0) + p.run.length * 1000 + p.run.width : 0,
  );
  const run = best.run;
  if (!run) {
    const [first, ...rest] = all(best.delimiter);
    return {
      table: first
        ? {
            delimiter: best.delimiter,
            ...splitHeader(first, rest),
            headerless: false,
            headerLine: first.line,
          }
        : { delimiter: best.delimiter, header: [], records: [], headerless: false, headerLine: undefined },
      bank: given,
      recognised: false,
    };
  }
  // A header row may be a little wider or narrower than the data (a trailing delimiter on one of them).
  let headerIndex = run.start;
  const previous = best.records[run.start - 1];
  if (looksLikeData(best.records[run.start]!.values) && previous && !looksLikeData(previous.values))
    headerIndex = run.start - 1;
  const header = best.records[headerIndex]!;
  if (looksLikeData(header.values)) {
    return {
      table: {
        delimiter: best.delimiter,
        header: [],
        headerless: true,
        headerLine: undefined,
        records: from(best.delimiter, best.records[run.start]!.line).filter((r) =>
          sameShape(r, best.records[run.start]!),
        ),
      },
      bank: given,
      recognised: false,
    };
  }
  return {
    table: {
      delimiter: best.delimiter,
      ...splitHeader(header, from(best.delimiter, header.line).slice(1)),
      headerless: false,
      headerLine: header.line,
    },
    bank: given,
    recognised: false,
  };
}

/** How many lines of a file are enough to find its table (the header search looks at 100 records). */
const HEAD_LINES = 300;

/** The first lines of a text, or all of it. */
function headOf(text: string): string {
  let at = -1;
  for (let i = 0; i < HEAD_LINES; i++) {
    at = text.indexOf('\n', at + 1);
    if (at === -1) return text;
  }
  return text.slice(0, at + 1);
}

function pickBy<T>(items: T[], score: (item: T) => number): T {
  let best = items[0] as T;
  for (const item of items) if (score(item) > score(best)) best = item;
  return best;
}
