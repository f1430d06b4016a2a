import { usageError } from '../errors.js';
import { isLedgerField, LEDGER_FIELDS, type LedgerField, REQUIRED_FIELDS } from './fields.js';

export interface Mapping {
  /** Index of the CSV column that feeds each mapped field. */
  columns: Partial<Record<LedgerField, number>>;
  /** Header names that feed nothing (reported, not an error). */
  ignored: string[];
  /** Value for account_id where the file has none (`--account`). */
  account: string | undefined;
}

/** A header name as a field name: case and surrounding space ignored, spaces and dashes as underscores. */
const normalise = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** Parses `--map column=field` arguments. */
export function parseMapArgs(args: string[]): Map<string, LedgerField> {
  const maps = new Map<string, LedgerField>();
  for (const arg of args) {
    const eq = arg.lastIndexOf('=');
    const column = arg.slice(0, eq).trim();
    const field = normalise(arg.slice(eq + 1));
    if (eq <= 0 || !column) throw usageError(`--map ${arg}: expected column=field`);
    if (!isLedgerField(field)) {
      throw usageError(
        `--map ${arg}: "${field}" is not a ledger_entries field`,
        `Fields: ${LEDGER_FIELDS.join(', ')}.`,
      );
    }
    maps.set(column, field);
  }
  return maps;
}

/**
 * Decides which column feeds which field: explicit `--map` first, then columns whose name is a field's name.
 * Wrong usage (a mapped column the file does not have, two columns for one field, a required field with no
 * source) is a usage error: it is fixed on the command line, not in the data.
 */
export function resolveMapping(
  header: string[],
  maps: Map<string, LedgerField>,
  account?: string,
  currency?: string,
): Mapping {
  const columns: Partial<Record<LedgerField, number>> = {};
  const used = new Set<number>();
  const assign = (field: LedgerField, index: number) => {
    const taken = columns[field];
    if (taken !== undefined && taken !== index) {
      throw usageError(
        `Both columns "${header[taken]}" and "${header[index]}" map to ${field}.`,
        'Map one of them elsewhere with --map column=field, or remove it from the file.',
      );
    }
    columns[field] = index;
    used.add(index);
  };
  for (const [column, field] of maps) {
    const index = header.indexOf(column);
    const loose = index === -1 ? header.findIndex((h) => normalise(h) === normalise(column)) : index;
    if (loose === -1)
      throw usageError(
        `--map ${column}=${field}: the file has no column "${column}".`,
        `Columns: ${header.join(', ')}.`,
      );
    assign(field, loose);
  }
  header.forEach((name, index) => {
    if (used.has(index)) return;
    const field = normalise(name);
    if (isLedgerField(field) && columns[field] === undefined) assign(field, index);
  });
  const cleanAccount = account?.trim() || undefined;
  const missing = REQUIRED_FIELDS.filter(
    (f) =>
      columns[f] === undefined && !(f === 'account_id' && cleanAccount) && !(f === 'currency' && currency),
  );
  if (missing.length > 0) {
    throw usageError(
      `No column for ${missing.join(', ')}.`,
      `Name the columns after the fields, or map them: --map "Date=ts" --map "Amount=amount"${
        missing.includes('account_id') ? ', or give --account <id>' : ''
      }${missing.includes('currency') ? ', or give --currency <code>' : ''}${
        header.length === 1 && /[;\t]/.test(header[0] ?? '')
          ? ` (one column "${header[0]}": is the delimiter --delimiter ';' or tab?)`
          : ''
      }.`,
    );
  }
  const ignored = header.filter((_, index) => !used.has(index));
  return { columns, ignored, account: cleanAccount };
}
