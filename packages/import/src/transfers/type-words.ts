import { CARD_PAYMENT, rolesOf, settlesCard } from '../csv/words.js';
import type { LedgerRow } from '../rows/fields.js';
import { CLEARING_ACCOUNT } from './legs.js';

/**
 * The columns that say what kind of movement a row is (`Type`, `Transaction type`, `Mutatiesoort`, `Umsatzart`,
 * `Typ`, a debit/credit indicator), whatever role the reader then gave them: mapped elsewhere or left out.
 */
export function typeColumns(header: readonly string[]): number[] {
  return header.flatMap((h, i) => (rolesOf(h).some((r) => r === 'type' || r === 'direction') ? [i] : []));
}

/**
 * Rows whose type column says they settle a card (`PAYMENT`, `Zahlung`, `Paiement`, and nothing else: Monzo's
 * `Card payment` is a purchase made with a card, `Faster payment` how money came in) while their payee and note do not keep those words in their note (`ONLINE TRANSFER 88231` becomes `ONLINE TRANSFER 88231 (PAYMENT)`): the
 * pairing (pair.ts, legs.ts) reads the words of a row, and later of the entry stored from it, in its payee and
 * note, and an equal amount within a week never makes a transfer without them. A fee's row and a clearing leg
 * keep theirs. `records` are the file's rows by line, as the rows were read from them.
 */
export function keepTypeWords(
  rows: LedgerRow[],
  records: readonly { line: number; values: readonly string[] }[],
  columns: readonly number[],
): LedgerRow[] {
  if (columns.length === 0) return rows;
  const byLine = new Map(records.map((r) => [r.line, r]));
  return rows.map((row) => {
    if (row.account_id === CLEARING_ACCOUNT || row.external_id.endsWith(':fee')) return row;
    const record = byLine.get(row.line);
    if (!record) return row;
    const own = `${row.counterparty ?? ''} ${row.note ?? ''}`;
    if (settlesCard(own)) return row;
    const words = [...new Set(columns.map((i) => (record.values[i] ?? '').trim()))]
      .filter((w) => w !== '' && onlyPaymentWords(w) && !own.includes(w))
      .join(' ');
    return words ? noted(row, words) : row;
  });
}

/**
 * A type that is a payment word and nothing else (`PAYMENT`, `Zahlung`, `Payment - Thank You`): `Faster payment`,
 * `Card payment` or `Direct debit payment` name how money moved, not that it settled a card.
 */
function onlyPaymentWords(type: string): boolean {
  const payment = new RegExp(CARD_PAYMENT.source, 'giu');
  return CARD_PAYMENT.test(type) && type.replace(payment, '').replace(/[\s\p{P}]+/gu, '') === '';
}

const noted = (row: LedgerRow, words: string): LedgerRow => ({
  ...row,
  note: row.note ? `${row.note} (${words})` : words,
});

/**
 * A statement's row of money in whose own type says it is a payment (OFX `TRNTYPE` `PAYMENT`) while its payee and
 * note do not (an empty `NAME`, `ONLINE`): the type's word is kept in its note, as a CSV type column's is, so a
 * card's row and the entry stored from it say they settle the card. Money out keeps its words: on a bank's
 * statement `PAYMENT` is any bill paid, and an equal amount within a week never makes a transfer without the words.
 */
export function keepStatementType(row: LedgerRow, type: string | undefined): LedgerRow {
  if (type === undefined || !CARD_PAYMENT.test(type)) return row;
  if (CARD_PAYMENT.test(`${row.counterparty ?? ''} ${row.note ?? ''}`)) return row;
  return noted(row, type);
}
