import { type DateFormat, isoDate, normaliseAmount } from '../csv/dialect.js';
import type { Mapping } from '../csv/mapping.js';
import type { CsvRecord } from '../csv/parse.js';
import { otherParty, type Parties } from '../csv/parties.js';
import { CARD_PAYMENT, directionOf } from '../csv/words.js';
import { MAX_BATCH_ROWS } from '../send/batches.js';
import { sha256Hex } from '../send/digest.js';
import { cardPaymentLegs } from '../transfers/legs.js';
import { KINDS, type LedgerField, type LedgerRow } from './fields.js';
import { parseAmount, parseCurrency, parseTimestamp, signOf } from './values.js';

/** What a setting of the import would change about a row's problem (worded per reader by `problemWords`). */
export type RowFix =
  | { setting: 'decimalComma' }
  | { setting: 'dateFormat'; orders: string }
  | { setting: 'account' };

export interface RowProblem {
  line: number;
  field?: string;
  /** The problem, in no reader's words for a setting: `fix` says which setting would change it. */
  message: string;
  fix?: RowFix;
}

export interface Validation<R = LedgerRow> {
  rows: R[];
  problems: RowProblem[];
  /** Rows that are not movements (a preset's balance line, a reverted payment), left out on purpose. */
  left: { line: number; reason: string }[];
}

const TEXT_LIMIT = 1000;

/**
 * The external_id of a row that has none: a hash of its content and of how many identical rows came before
 * it in the file, so two identical rows stay two rows and the same file gives the same ids every time.
 */
export function deriveExternalId(content: string, occurrence: number): string {
  return `csv:${sha256Hex(`${content}\n#${occurrence}`).slice(0, 40)}`;
}

/** Validates every record; all problems are collected, none stops the walk. */
export interface ValueOptions {
  dateFormat?: DateFormat;
  decimalComma?: boolean;
  /** The currency of rows without a currency column. */
  currency?: string;
  /** Columns of money out and money in (`--debit`/`--credit`), used when no amount column is mapped. */
  debit?: number;
  credit?: number;
  /** The file shows money out as positive (`--invert-sign`). */
  invertSign?: boolean;
  /** Rows without an amount are left out instead of refused (a preset's balance line). */
  skipWithoutAmount?: boolean;
  /** Rows that are not booked movements (pending, authorisations, reverted): left out and counted. */
  filters?: RowFilterAt[];
  /** Why a row is not a movement (a status, a balance line, a footer), as the content says; undefined to keep it. */
  skip?: (values: string[]) => string | undefined;
  /** A direction column (`Af`/`Bij`, `S`/`H`, `DEBIT`/`CREDIT`) that gives unsigned amounts their sign. */
  direction?: number;
  /** A fee column: a non-zero fee is booked as an entry of its own (category fees). */
  fee?: { index: number; charged: 'positive' | 'negative' };
  /**
   * The identity of a row for its duplicate key, from the file's raw row and never from the mapping (bank,
   * account, date, amount and description as written); with the occurrence of the same identity within the file.
   */
  rowIdentity?: (values: string[], account: string) => string;
  /**
   * The file is a card's: a payment in (money into the card, its words say payment) is a transfer from the account
   * that paid, booked as two legs (see transfers/legs.ts), never income.
   */
  card?: boolean;
  /** Payer and payee columns with the holder on one side: a row's counterparty is the other side. */
  parties?: Parties;
}

/** A preset's filter with its column found: `keep` rows whose value is listed, or `drop` them. */
export interface RowFilterAt {
  index: number;
  column: string;
  values: readonly string[];
  keep: boolean;
}

/** Why a row is not a booked movement, or undefined when it is. */
function filteredOut(values: string[], filters: readonly RowFilterAt[]): string | undefined {
  for (const f of filters) {
    const value = (values[f.index] ?? '').trim();
    const listed = f.values.some((v) => v.toLowerCase() === value.toLowerCase());
    if (listed !== f.keep) return `${f.column} is ${value || 'empty'}`;
  }
  return undefined;
}

/** The amount of a row: its amount column, or its debit (negative) or credit (positive) column. */
function rowAmount(
  values: string[],
  amountIndex: number | undefined,
  options: ValueOptions,
):
  | { ok: true; value: string }
  | { ok: false; problem: string; field: string; fix?: RowFix }
  | { ok: 'empty' } {
  const comma = options.decimalComma === true;
  const parse = (raw: string, field: string) => {
    const normal = normaliseAmount(raw, comma, options.skip !== undefined);
    const parsed = normal === undefined ? parseAmount(raw) : parseAmount(normal);
    if (parsed.ok) return parsed;
    const decimalComma = !comma && /\d,\d{1,2}\)?\s*\S{0,3}$/.test(raw.trim());
    return {
      ok: false as const,
      problem: parsed.problem,
      field,
      ...(decimalComma ? { fix: { setting: 'decimalComma' } as const } : {}),
    };
  };
  let value: string;
  if (amountIndex !== undefined) {
    const raw = values[amountIndex] ?? '';
    if (raw.trim() === '') return options.skipWithoutAmount ? { ok: 'empty' } : { ...parse(raw, 'amount') };
    const parsed = parse(raw, 'amount');
    if (!parsed.ok) return parsed;
    value = parsed.value;
  } else {
    const debit = options.debit === undefined ? '' : (values[options.debit] ?? '').trim();
    const credit = options.credit === undefined ? '' : (values[options.credit] ?? '').trim();
    if (debit === '' && credit === '') {
      if (options.skipWithoutAmount) return { ok: 'empty' };
      return { ok: false, problem: 'has neither a debit nor a credit', field: 'amount' };
    }
    const d = debit === '' ? undefined : parse(debit, 'debit');
    const c = credit === '' ? undefined : parse(credit, 'credit');
    if (d && !d.ok) return d;
    if (c && !c.ok) return c;
    const magnitude = (v: string) => v.replace(/^-/, '');
    if (d && c && signOf(d.value) !== 0 && signOf(c.value) !== 0)
      return { ok: false, problem: `has both a debit (${debit}) and a credit (${credit})`, field: 'amount' };
    value = d && signOf(d.value) !== 0 ? `-${magnitude(d.value)}` : magnitude(c?.value ?? d!.value);
  }
  if (options.direction !== undefined) {
    const d = directionOf(values[options.direction] ?? '');
    const magnitude = value.replace(/^-/, '');
    if (d !== undefined) value = d < 0 ? `-${magnitude}` : magnitude;
  }
  if (options.invertSign) value = value.startsWith('-') ? value.slice(1) : `-${value}`;
  if (signOf(value) === 0) value = value.replace(/^-/, '');
  return { ok: true, value };
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

  const left: { line: number; reason: string }[] = [];
  for (const record of records) {
    const before = problems.length;
    const notBooked =
      (values.filters ? filteredOut(record.values, values.filters) : undefined) ??
      values.skip?.(record.values);
    if (notBooked) {
      left.push({ line: record.line, reason: notBooked });
      continue;
    }
    const problem = (message: string, field?: string, fix?: RowFix) =>
      problems.push({ line: record.line, message, ...(field ? { field } : {}), ...(fix ? { fix } : {}) });
    if (record.values.length !== header.length) {
      problem(`has ${record.values.length} fields, the header has ${header.length}`);
      continue;
    }
    const get = (field: LedgerField | 'amount'): string | undefined => {
      const index = mapping.columns[field];
      return index === undefined ? undefined : record.values[index];
    };
    const text = (field: LedgerField): string | null => {
      // A text some banks wrap in single quotes (ASN's `'Termijnbedrag'`) is the text inside them.
      const raw = (get(field)?.trim() ?? '').replace(/^'([^']*)'$/, '$1').trim();
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

    const money = rowAmount(record.values, mapping.columns.amount, values);
    if (money.ok === 'empty') {
      left.push({ line: record.line, reason: 'no amount' });
      continue;
    }
    const amount = money.ok ? money : ({ ok: false, problem: money.problem } as const);
    if (!money.ok) problem(money.problem, money.field, money.fix);
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
      const ordered = /^\d{1,2}([./-])\d{1,2}\1\d{2,4}/.test(rawTs.trim()) && !values.dateFormat;
      const orders = rawTs.trim()[2] === '.' ? 'DD.MM.YYYY' : 'MM/DD/YYYY or DD/MM/YYYY';
      problem(ts.problem, 'ts', ordered ? { setting: 'dateFormat', orders } : undefined);
    }
    const currency = parseCurrency(get('currency') || values.currency || '');
    if (!currency.ok) problem(currency.problem, 'currency');
    const account = text('account_id') ?? mapping.account ?? null;
    if (account === null && problems.length === before)
      problem('is empty', 'account_id', { setting: 'account' });

    let kind = text('kind')?.toLowerCase() ?? null;
    const kindBySign = kind === null;
    if (kind !== null && !(KINDS as readonly string[]).includes(kind)) {
      problem(`"${kind}" is not one of ${KINDS.join(', ')}`, 'kind');
      kind = null;
    } else if (kind === null && amount.ok) {
      const sign = signOf(amount.value);
      if (sign === 0) problem('is zero, so the kind cannot follow its sign (map a kind column)', 'amount');
      else kind = sign < 0 ? 'spend' : 'income';
    }
    const category = text('category');
    const note = text('note');
    // A row whose payee column is empty (a card purchase among transfers) is named by its description.
    const counterparty =
      (values.parties && otherParty(record.values, values.parties)) ??
      text('counterparty') ??
      (mapping.columns.counterparty === undefined ? null : note);
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
    const identity = values.rowIdentity ? values.rowIdentity(record.values, account) : content;
    const occurrence = (seenContent.get(identity) ?? 0) + 1;
    seenContent.set(identity, occurrence);
    const externalId = givenExternal ?? deriveExternalId(identity, occurrence);
    const firstLine = seenExternal.get(externalId);
    if (firstLine !== undefined) {
      problem(`repeats the external_id "${externalId}" of line ${firstLine}`, 'external_id');
      continue;
    }
    seenExternal.set(externalId, record.line);
    const row: LedgerRow = {
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
    };
    if (values.card && kindBySign && kind === 'income' && eventId === null && isCardPayment(record.values))
      rows.push(...cardPaymentLegs(row));
    else rows.push(row);
    if (values.fee) {
      const fee = feeAmount(
        record.values[values.fee.index] ?? '',
        values.fee.charged,
        values.decimalComma === true,
      );
      if (fee === undefined) problem(`"${record.values[values.fee.index]}" is not a fee amount`, 'fee');
      else if (signOf(fee) !== 0)
        rows.push({
          line: record.line,
          ts: ts.value,
          account_id: account,
          amount: fee,
          currency: currency.value,
          kind: signOf(fee) < 0 ? 'spend' : 'income',
          category: 'fees',
          counterparty,
          note: `fee${note ? `: ${note}` : ''}`,
          event_id: null,
          external_id: `${externalId}:fee`,
        });
    }
  }
  problems.push(...eventProblems(rows));
  return { rows, problems, left };
}

/** A card's payment in, by its words in any of the row's columns (description, type, memo). */
const isCardPayment = (values: string[]) => CARD_PAYMENT.test(values.join(' '));

/** A fee as the entry it books: a charge is negative (a refunded fee positive); empty is no fee. */
function feeAmount(raw: string, charged: 'positive' | 'negative', decimalComma: boolean): string | undefined {
  if (raw.trim() === '') return '0';
  const normal = normaliseAmount(raw, decimalComma);
  const parsed = parseAmount(normal ?? raw);
  if (!parsed.ok) return undefined;
  if (charged === 'negative') return parsed.value;
  return parsed.value.startsWith('-') ? parsed.value.slice(1) : `-${parsed.value}`;
}

/**
 * What the service would refuse about an event as a whole, said with line numbers before anything is sent:
 * the transfer legs of an event must sum to zero per currency, and an event must fit in one batch.
 */
export function eventProblems(rows: LedgerRow[]): RowProblem[] {
  const events = new Map<string, LedgerRow[]>();
  for (const row of rows) {
    if (row.event_id === null) continue;
    const legs = events.get(row.event_id) ?? [];
    legs.push(row);
    events.set(row.event_id, legs);
  }
  const problems: RowProblem[] = [];
  for (const [event, legs] of events) {
    const lines = legs.map((l) => l.line).join(', ');
    if (legs.length > MAX_BATCH_ROWS)
      problems.push({
        line: legs[0]!.line,
        field: 'event_id',
        message: `event "${event}" has ${legs.length} rows (lines ${lines}); one event is sent in one batch of at most ${MAX_BATCH_ROWS}`,
      });
    const sums = new Map<string, bigint>();
    for (const leg of legs) {
      if (leg.kind !== 'transfer') continue;
      sums.set(leg.currency, (sums.get(leg.currency) ?? 0n) + cents(leg.amount));
    }
    for (const [currency, sum] of sums) {
      if (sum !== 0n)
        problems.push({
          line: legs[0]!.line,
          field: 'event_id',
          message: `the transfer legs of event "${event}" (lines ${lines}) do not sum to zero in ${currency}`,
        });
    }
  }
  return problems;
}

/** An exact decimal as an integer of its smallest unit (10^-12), for summing without rounding. */
function cents(amount: string): bigint {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = ''] = amount.replace(/^[+-]/, '').split('.');
  const value = BigInt(whole || '0') * 10n ** 12n + BigInt((fraction.slice(0, 12) || '0').padEnd(12, '0'));
  return negative ? -value : value;
}
