import { usageError } from '../errors.js';
import { type FieldSet, LEDGER_FIELD_SET } from '../rows/fields.js';

export interface Mapping {
  /** Index of the CSV column that feeds each mapped field. */
  columns: Partial<Record<string, number>>;
  /** Header names that feed nothing (reported, not an error). */
  ignored: string[];
  /** Value for account_id where the file has none (`--account`). */
  account: string | undefined;
}

/** A header name as a field name: case and surrounding space ignored, spaces and dashes as underscores. */
export const normalise = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** The index of a header column by its exact name, else case- and spacing-insensitively; -1 when absent. */
export function findColumn(header: string[], column: string): number {
  const index = header.indexOf(column);
  return index === -1 ? header.findIndex((h) => normalise(h) === normalise(column)) : index;
}

/** Parses `--map column=field` arguments. */
export function parseMapArgs(args: string[], set: FieldSet = LEDGER_FIELD_SET): Map<string, string> {
  const maps = new Map<string, string>();
  for (const arg of args) {
    const eq = arg.lastIndexOf('=');
    const column = arg.slice(0, eq).trim();
    const field = normalise(arg.slice(eq + 1));
    if (eq <= 0 || !column) throw usageError(`--map ${arg}: expected column=field`);
    if (!set.fields.includes(field)) {
      throw usageError(
        `--map ${arg}: "${field}" is not a ${set.table} field`,
        `Fields: ${set.fields.join(', ')}.`,
      );
    }
    maps.set(column, field);
  }
  return maps;
}

export interface MappingOptions {
  account?: string | undefined;
  currency?: string | undefined;
  /** Columns the amount comes from instead (`--debit`/`--credit`): no amount column is needed. */
  debitCredit?: number[];
  set?: FieldSet;
}

/**
 * Decides which column feeds which field: explicit `--map` first, then columns whose name is a field's name.
 * Wrong usage (a mapped column the file does not have, two columns for one field, a required field with no
 * source) is a usage error: it is fixed on the command line, not in the data.
 */
export function resolveMapping(
  header: string[],
  maps: Map<string, string>,
  accountOrOptions?: string | MappingOptions,
  currencyArg?: string,
): Mapping {
  const options: MappingOptions =
    typeof accountOrOptions === 'object'
      ? accountOrOptions
      : { account: accountOrOptions, currency: currencyArg };
  const set = options.set ?? LEDGER_FIELD_SET;
  const { currency } = options;
  const columns: Partial<Record<string, number>> = {};
  const used = new Set<number>(options.debitCredit ?? []);
  const assign = (field: string, index: number) => {
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
    const index = findColumn(header, column);
    if (index === -1)
      throw usageError(
        `--map ${column}=${field}: the file has no column "${column}".`,
        `Columns: ${header.join(', ')}.`,
      );
    assign(field, index);
  }
  header.forEach((name, index) => {
    if (used.has(index)) return;
    const field = normalise(name);
    if (set.fields.includes(field) && columns[field] === undefined) assign(field, index);
  });
  const cleanAccount = set.table === 'ledger_entries' ? options.account?.trim() || undefined : undefined;
  const missing = set.required.filter(
    (f) =>
      columns[f] === undefined &&
      !(f === 'account_id' && cleanAccount) &&
      !(f === 'currency' && currency) &&
      !(f === 'amount' && options.debitCredit?.length),
  );
  if (missing.length > 0) {
    throw usageError(
      `No column for ${missing.join(', ')}.`,
      `Name the columns after the fields, or map them: ${set.example}${
        missing.includes('account_id') ? ', or give --account <id>' : ''
      }${missing.includes('currency') ? ', or give --currency <code>' : ''}${
        missing.includes('amount') ? ', or give --debit <column> --credit <column>' : ''
      }${
        header.length === 1 && /[;\t]/.test(header[0] ?? '')
          ? ` (one column "${header[0]}": is the delimiter --delimiter ';' or tab?)`
          : ''
      }.`,
      missing.length === 1 && missing[0] === 'account_id'
        ? { variant: 'import_account' }
        : { variant: 'import_columns', facts: { missing: missing.join(', ') } },
    );
  }
  const ignored = header.filter((_, index) => !used.has(index));
  return { columns, ignored, account: cleanAccount };
}
