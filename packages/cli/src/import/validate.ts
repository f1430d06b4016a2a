import { createHash } from 'node:crypto';
import { type DateFormat, isoDate, normaliseAmount } from './dialect.js';
import { KINDS, type LedgerField, type LedgerRow } from './fields.js';
import type { Mapping } from './mapping.js';
import type { CsvRecord } from './parse.js';
import { parseAmount, parseCurrency, parseTimestamp, signOf } from './values.js';

export interface RowProblem {
  line: number;
  field?: string;
  message: string;
}

export interface Validation {
  rows: LedgerRow[];
  problems: RowProblem[];
}

const TEXT_LIMIT = 1000;

/**
 * The external_id of a row that has none: a hash of its content and of how many identical rows came before
 * it in the file, so two identical rows stay two rows and the same file gives the same ids every time.
 */
export function deriveExternalId(content: string, occurrence: number): string {
  return `csv:${createHash('sha256').update(`${content}\n#${occurrence}`).digest('hex').slice(0, 40)}`;
}

/** Validates every record; all problems are collected, none stops the walk. */
export interface ValueOptions {
  dateFormat?: DateFormat;
  decimalComma?: boolean;
  /** The currency of rows without a currency column. */
  currency?: string;
}

export function validateRecords(
  header: string[],
  records: CsvRecord[],
  mapping: Mapping,
  values: ValueOptions = {},
): Validation {
  const rows: LedgerRow[] = [];
  const problems: RowProblem[] = [];
  const seenContent = new Map<string, number>();
  const seenExternal = new Map<string, number>();

  for (const record of records) {
    const before = problems.length;
    const problem = (message: string, field?: string) =>
      problems.push({ line: record.line, message, ...(field ? { field } : {}) });
    if (record.values.length !== header.length) {
      problem(`has ${record.values.length} fields, the header has ${header.length}`);
      continue;
    }
    const get = (field: LedgerField): string | undefined => {
      const index = mapping.columns[field];
      return index === undefined ? undefined : record.values[index];
    };
    const text = (field: LedgerField): string | null => {
      const raw = get(field)?.trim() ?? '';
      if (raw.includes('\u0000')) {
        problem('contains a NUL character', field);
        return null;
      }
      if (raw.length > TEXT_LIMIT) {
        problem(`is longer than ${TEXT_LIMIT} characters`, field);
        return null;
      }
      return raw === '' ? null : raw;
    };

    const rawTs = get('ts') ?? '';
    const ts =
      values.dateFormat && values.dateFormat !== 'YYYY-MM-DD'
        ? (() => {
            const iso = isoDate(rawTs, values.dateFormat!);
            return iso
              ? parseTimestamp(iso)
              : ({ ok: false, problem: `"${rawTs}" is not a date written ${values.dateFormat}` } as const);
          })()
        : parseTimestamp(rawTs);
    if (!ts.ok) {
      const hint =
        /^\d{1,2}([./-])\d{1,2}\1\d{2,4}/.test(rawTs.trim()) && !values.dateFormat
          ? ` — give its order with --date-format (${rawTs.trim()[2] === '.' ? 'DD.MM.YYYY' : 'MM/DD/YYYY or DD/MM/YYYY'})`
          : '';
      problem(`${ts.problem}${hint}`, 'ts');
    }
    const rawAmount = get('amount') ?? '';
    const normal = normaliseAmount(rawAmount, values.decimalComma === true);
    const amount = normal === undefined ? parseAmount(rawAmount) : parseAmount(normal);
    if (!amount.ok) {
      const hint =
        !values.decimalComma && /\d,\d{1,2}\)?\s*\S{0,3}$/.test(rawAmount.trim())
          ? ' — a decimal comma? use --decimal-comma'
          : '';
      problem(`${amount.problem}${hint}`, 'amount');
    }
    const currency = parseCurrency(get('currency') || values.currency || '');
    if (!currency.ok) problem(currency.problem, 'currency');
    const account = text('account_id') ?? mapping.account ?? null;
    if (account === null && problems.length === before)
      problem('is empty (give the column a value, or use --account)', 'account_id');

    let kind = text('kind')?.toLowerCase() ?? null;
    if (kind !== null && !(KINDS as readonly string[]).includes(kind)) {
      problem(`"${kind}" is not one of ${KINDS.join(', ')}`, 'kind');
      kind = null;
    } else if (kind === null && amount.ok) {
      const sign = signOf(amount.value);
      if (sign === 0) problem('is zero, so the kind cannot follow its sign (map a kind column)', 'amount');
      else kind = sign < 0 ? 'spend' : 'income';
    }
    const category = text('category');
    const counterparty = text('counterparty');
    const note = text('note');
    const eventId = text('event_id');
    const givenExternal = text('external_id');

    if (problems.length > before || !ts.ok || !amount.ok || !currency.ok || account === null || kind === null)
      continue;

    const content = JSON.stringify([
      ts.value,
      account,
      amount.value,
      currency.value,
      kind,
      category,
      counterparty,
      note,
      eventId,
    ]);
    const occurrence = (seenContent.get(content) ?? 0) + 1;
    seenContent.set(content, occurrence);
    const externalId = givenExternal ?? deriveExternalId(content, occurrence);
    const firstLine = seenExternal.get(externalId);
    if (firstLine !== undefined) {
      problem(`repeats the external_id "${externalId}" of line ${firstLine}`, 'external_id');
      continue;
    }
    seenExternal.set(externalId, record.line);
    rows.push({
      line: record.line,
      ts: ts.value,
      account_id: account,
      amount: amount.value,
      currency: currency.value,
      kind,
      category,
      counterparty,
      note,
      event_id: eventId,
      external_id: externalId,
    });
  }
  return { rows, problems };
}
