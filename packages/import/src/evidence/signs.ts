import { normaliseAmount } from '../csv/dialect.js';
import type { CsvRecord } from '../csv/parse.js';
import type { ColumnRoles } from '../csv/roles.js';
import { CARD_PAYMENT, directionOf, PAYMENT_RECEIVED } from '../csv/words.js';
import { microUnits } from './money.js';

/**
 * Which way the amounts of a file point, from evidence, never from a guess: a running balance (each row's balance
 * minus the previous one is its amount: the sign that makes every step add up), money out and money in columns, a
 * direction column (`Af`/`Bij`, `S`/`H`, `DEBIT`/`CREDIT`), and for a card the card's own convention (its payments
 * point the other way from its charges). What cannot be told is `ambiguous`; what contradicts itself `conflict`.
 */

export type SignDecision =
  | {
      kind: 'decided';
      invert: boolean;
      byDirection: boolean;
      how: string;
      /** The charges' sign as the caller gave it (`--charges-positive`, `chargesPositive=true`), when it decided. */
      given?: 'positive' | 'negative';
      /** The file proved itself a card's: its charges are written positive against its payments. */
      card?: boolean;
    }
  | { kind: 'ambiguous'; why: string; example: string }
  /** The amounts' signs disagree with the file's debit/credit column, or with its running balance. */
  | { kind: 'conflict'; with: 'direction' | 'balance'; line: number; message: string };

interface Row {
  line: number;
  amount: number;
  /** A fee charged on the row (a column of its own): it lowers the balance whatever the amount's sign. */
  fee: number;
  balance: number | undefined;
  values: string[];
  direction: -1 | 1 | undefined;
}

export interface SignInput {
  records: CsvRecord[];
  roles: ColumnRoles;
  decimalComma: boolean;
  /** Rows that are not movements (pending, balance lines): left out of the evidence. */
  skipped: (record: CsvRecord) => boolean;
  /** The file is a card's (its header, its types or its preamble say so). */
  card: boolean;
  /** `--charges-positive` / `--charges-negative`. */
  charges: 'positive' | 'negative' | undefined;
  /** The order of the rows by their dates: 1 oldest first, -1 newest first, 0 when the dates do not say. */
  order: 1 | -1 | 0;
}

const money = (raw: string | undefined, comma: boolean): number | undefined => {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = normaliseAmount(raw, comma, true);
  return n === undefined ? undefined : microUnits(n);
};
const abs = (x: number) => (x < 0 ? -x : x);

export function decideSign(input: SignInput): SignDecision {
  const { records, roles, decimalComma: comma } = input;
  const byColumns = roles.out !== undefined && roles.in !== undefined;
  const rows: Row[] = [];
  let unsigned = true;
  let agree = 0;
  let disagree = 0;
  for (const r of records) {
    if (input.skipped(r)) continue;
    const v = r.values;
    let amount: number | undefined;
    if (byColumns) {
      const out = money(v[roles.out!], comma);
      const inn = money(v[roles.in!], comma);
      if (out !== undefined && out !== 0) amount = -abs(out);
      else if (inn !== undefined) amount = abs(inn);
      else amount = out;
    } else if (roles.amount !== undefined) amount = money(v[roles.amount], comma);
    if (amount === undefined) continue;
    if (!byColumns && amount < 0) unsigned = false;
    const d = roles.direction === undefined ? undefined : directionOf(v[roles.direction] ?? '');
    if (roles.direction !== undefined && !byColumns) {
      if (d !== undefined && amount !== 0) {
        if ((amount > 0 ? 1 : -1) === d) agree++;
        else disagree++;
      }
    }

    rows.push({
      line: r.line,
      amount,
      fee: roles.fee === undefined ? 0 : abs(money(v[roles.fee], comma) ?? 0),
      balance: roles.balance === undefined ? undefined : money(v[roles.balance], comma),
      values: v,
      direction: d,
    });
  }
  // A direction column: unsigned amounts take its sign; signed ones must agree with it (or all disagree: inverted).
  let byDirection = false;
  if (roles.direction !== undefined && !byColumns && agree + disagree > 0) {
    if (unsigned && disagree > 0) byDirection = true;
    else if (agree > 0 && disagree > 0) {
      return {
        kind: 'conflict',
        with: 'direction',
        line: rows[0]?.line ?? 0,
        message: `its amounts' signs and its debit/credit column disagree on ${Math.min(agree, disagree)} rows`,
      };
    }
  }
  const amounts = rows.map((row) =>
    !byDirection ? row.amount : row.direction === -1 ? -abs(row.amount) : abs(row.amount),
  );

  // The card convention's evidence: a card's payments point the other way from its charges, which are most rows.
  const positive = amounts.filter((a) => a > 0).length;
  const negative = amounts.filter((a) => a < 0).length;
  const majority = positive > negative ? 1 : -1;
  // Payments that say anything point against most rows: only those rows are read for the words.
  const payments = rows.filter(
    (r, i) =>
      amounts[i] !== 0 && (amounts[i]! > 0 ? 1 : -1) !== majority && CARD_PAYMENT.test(r.values.join(' ')),
  );
  const paymentSigns = new Set(payments.map((p) => (p.amount > 0 ? 1 : -1)));
  /** What the payments say about the sign: invert (charges written positive), keep, or nothing. */
  // Turning every sign needs payments on one side only: a payment among the charges too says nothing.
  const mixed =
    majority > 0 &&
    payments.length > 0 &&
    rows.some((r, i) => amounts[i]! > 0 && CARD_PAYMENT.test(r.values.join(' ')));
  const byPayments: boolean | undefined =
    paymentSigns.size === 1 && !mixed && [...paymentSigns][0] !== majority ? majority > 0 : undefined;

  // A running balance checks every row; for an account it proves the sign (what is in it goes up with money in). A
  // card's balance may be what is owed, which goes up with its charges: there it checks, the payments decide.
  const withBalance = rows
    .map((r, i) => ({ ...r, amount: amounts[i]! }))
    .filter((r) => r.balance !== undefined);
  if (roles.balance !== undefined && withBalance.length >= 2) {
    // Oldest first, a row's balance is the previous one plus its amount (or, in a balance-before column, plus
    // the previous row's amount); newest first, the other way round. Without dates, the balance is taken as after.
    const orders = input.order === 0 ? [true, false] : [input.order > 0];
    const hypotheses = orders
      .flatMap((asc) =>
        (input.order === 0 ? [false] : [false, true]).flatMap((before) =>
          [1, -1].map((s) => ({ s, asc, before })),
        ),
      )
      .map((h) => {
        let fits = 0;
        let firstMiss: Row | undefined;
        for (let i = 1; i < withBalance.length; i++) {
          const prev = withBalance[i - 1]!;
          const cur = withBalance[i]!;
          const step = cur.balance! - prev.balance!;
          const moved = h.asc !== h.before ? cur : prev;
          const ok = (h.asc ? step : -step) === h.s * moved.amount - moved.fee;
          if (ok) fits++;
          else firstMiss ??= h.asc ? cur : prev;
        }
        return { ...h, fits, firstMiss };
      });
    const best = hypotheses.reduce((a, b) => (b.fits > a.fits ? b : a));
    const pairs = withBalance.length - 1;
    if (best.fits < pairs) {
      const miss = best.firstMiss ?? withBalance[1]!;
      return {
        kind: 'conflict',
        with: 'balance',
        line: miss.line,
        message: `its running balance does not follow from its amounts at line ${miss.line} (${pairs - best.fits} of ${pairs} steps do not add up)`,
      };
    }
    if (!input.card) {
      if (byPayments !== undefined && byPayments !== best.s < 0)
        return {
          kind: 'ambiguous',
          why: 'its running balance and its payments point opposite ways (is it a card whose balance is what is owed?)',
          example: payments[0] ? `line ${payments[0].line}` : '',
        };
      return {
        kind: 'decided',
        invert: best.s < 0,
        byDirection,
        how: `checked against the balance column (${pairs} steps add up${best.s < 0 ? ' with the signs turned' : ''})`,
      };
    }
  }
  if (byColumns)
    return { kind: 'decided', invert: false, byDirection, how: 'money out and money in columns' };
  if (byDirection) return { kind: 'decided', invert: false, byDirection, how: 'the debit/credit column' };
  if (agree > 0 && disagree === 0)
    return { kind: 'decided', invert: false, byDirection: false, how: 'the debit/credit column agrees' };
  if (disagree > 0 && agree === 0)
    return {
      kind: 'decided',
      invert: true,
      byDirection: false,
      how: 'the debit/credit column (charges written positive)',
    };

  if (input.charges)
    return {
      kind: 'decided',
      invert: input.charges === 'positive',
      byDirection: false,
      how: `--charges-${input.charges}`,
      given: input.charges,
    };
  // A payment the card received, written negative with none positive: charges are written positive, whatever the
  // count of rows says (a payment and a refund can outnumber the charges of a short statement).
  const received = rows
    .map((r, i) => ({ amount: amounts[i]!, said: PAYMENT_RECEIVED.test(r.values.join(' ')) }))
    .filter((x) => x.said && x.amount !== 0);
  const receivedOut = received.some((x) => x.amount < 0) && !received.some((x) => x.amount > 0);
  if (receivedOut && byPayments === false)
    return {
      kind: 'ambiguous',
      why: 'its payments point both ways (a payment received is negative, others positive)',
      example: '',
    };
  if (receivedOut && byPayments === undefined)
    return {
      kind: 'decided',
      invert: true,
      byDirection: false,
      how: 'a card statement: its payment received is negative, its charges positive',
      card: true,
    };
  if (byPayments !== undefined)
    return {
      kind: 'decided',
      invert: byPayments,
      byDirection: false,
      how: byPayments ? 'a card statement: charges positive, payments negative' : 'payments in, charges out',
      ...(byPayments ? { card: true } : {}),
    };
  if (!input.card && majority < 0)
    return { kind: 'decided', invert: false, byDirection: false, how: 'signed amounts' };
  if (!input.card && positive === 0 && negative === 0)
    return { kind: 'decided', invert: false, byDirection: false, how: 'signed amounts' };
  const example = rows.find((r) => r.amount > 0);
  return {
    kind: 'ambiguous',
    why: input.card
      ? 'a card file whose charges could be written either way, with no balance or payment to tell'
      : `most amounts are positive (${positive} of ${positive + negative}) with no balance, debit/credit or type column to tell spending from income`,
    example: example ? `line ${example.line}` : '',
  };
}
