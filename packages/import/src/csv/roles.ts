import { isCurrencyCode } from './currencies.js';
import { DATE_FORMATS, dateIn, normaliseAmount } from './dialect.js';
import type { CsvRecord } from './parse.js';
import { CARD_PAYMENT, directionOf, headerKey, type Role, rankOf, rolesOf } from './words.js';

/**
 * What each column of a table in no bank's layout holds, read the way a person reads a statement: by the words of
 * its header in the banks' languages (csv/words.ts), checked against what its values look like, and by the values
 * alone when the header says nothing (or there is none). Pure.
 */

export interface ColumnRoles {
  date?: number;
  amount?: number;
  out?: number;
  in?: number;
  direction?: number;
  balance?: number;
  payee?: number;
  description?: number;
  status?: number;
  currency?: number;
  category?: number;
  account?: number;
  id?: number;
  reference?: number;
  /** A fee charged beside the amount (booked as an entry of its own, and in the running balance's steps). */
  fee?: number;
  /** Sparse party columns (payer, payee, merchant) read together: a row's counterparty is the first filled. */
  parties?: number[];
}

interface Profile {
  filled: number;
  dates: number;
  amounts: number;
  signed: number;
  codes: number;
  directions: number;
  distinct: number;
  digitsOnly: number;
  withDigit: number;
  ibans: number;
  /** Masked card numbers (`4500********1234`). */
  masked: number;
  /** Characters in all its cells, to tell a merchant's words from a short type code. */
  length: number;
  /** Cells with two decimals (`12.50`, `-1.234,56`): money, where a whole number may be a count or a code. */
  decimals: number;
}

const SAMPLE = 200;

function profile(records: CsvRecord[], index: number): Profile {
  const cells = records
    .slice(0, SAMPLE)
    .map((r) => (r.values[index] ?? '').trim())
    .filter((c) => c !== '');
  // The formats a few cells fit: a column of dates fits one from its first values.
  const first = cells.filter((c) => /\d/.test(c)).slice(0, 20);
  const formats = DATE_FORMATS.filter((f) => first.some((c) => dateIn(c, f) !== undefined));
  const p: Profile = {
    filled: cells.length,
    dates: 0,
    amounts: 0,
    signed: 0,
    codes: 0,
    directions: 0,
    distinct: new Set(cells).size,
    digitsOnly: 0,
    withDigit: 0,
    ibans: 0,
    masked: 0,
    length: 0,
    decimals: 0,
  };
  for (const c of cells) {
    if (/\d/.test(c)) p.withDigit++;
    if (formats.some((f) => dateIn(c, f) !== undefined)) p.dates++;
    else if (
      /\d/.test(c) &&
      c.length <= 24 &&
      (normaliseAmount(c, false, true) !== undefined || normaliseAmount(c, true, true) !== undefined)
    ) {
      p.amounts++;
      if (/[.,]\d{2}(?!\d)/.test(c)) p.decimals++;
      if (/^[-(−]|-$|\)$|DR$|^DR/i.test(c.replace(/\s/g, ''))) p.signed++;
    }
    if (isCurrencyCode(c)) p.codes++;
    if (directionOf(c) !== undefined) p.directions++;
    if (/^[\d\s/'.-]+$/.test(c)) p.digitsOnly++;
    if (/^[A-Z]{2}\d{2}[A-Z0-9 ]{10,30}$/.test(c)) p.ibans++;
    if (/^\d{0,6}(?:[*xX•]{4,}|\.{3}|…)\d{4}$/.test(c)) p.masked++;
    p.length += c.length;
  }
  return p;
}

const mostly = (n: number, of: number) => of > 0 && n >= of * 0.9;

export interface RolesResult {
  roles: ColumnRoles;
  /** For a headerless table: names that stand in for its header. */
  names: string[] | undefined;
}

/** The roles of a table's columns; `header` empty means the file has no header row. */
export function assignRoles(header: string[], records: CsvRecord[]): RolesResult {
  const width = Math.max(header.length, ...records.slice(0, SAMPLE).map((r) => r.values.length));
  const profiles = Array.from({ length: width }, (_, i) => profile(records, i));
  const said = Array.from({ length: width }, (_, i) => (header[i] === undefined ? [] : rolesOf(header[i]!)));
  const roles: ColumnRoles = {};
  const used = new Set<number>();
  const take = (role: Exclude<keyof ColumnRoles, 'parties'>, index: number | undefined) => {
    if (index === undefined || used.has(index)) return;
    roles[role] = index;
    used.add(index);
  };
  /** The column the header names for a role (the likeliest of its words first) whose values fit it; -1 if none. */
  const named = (role: Role, fits: (p: Profile) => boolean) => {
    let best = -1;
    let bestRank = Number.POSITIVE_INFINITY;
    said.forEach((r, i) => {
      if (!r.includes(role) || used.has(i) || !fits(profiles[i]!)) return;
      const rank = rankOf(header[i]!, role) ?? Number.POSITIVE_INFINITY;
      if (rank < bestRank) {
        best = i;
        bestRank = rank;
      }
    });
    return best;
  };
  const rows = Math.min(records.length, SAMPLE);
  const isParty = (p: Profile) => p.filled > 0 && p.digitsOnly < p.filled && p.ibans < p.filled * 0.5;
  const found = (i: number) => (i === -1 ? undefined : i);
  const isDates = (p: Profile) => p.filled > 0 && mostly(p.dates, p.withDigit) && p.dates > 0;
  const isMoney = (p: Profile) => p.amounts > 0 && mostly(p.amounts, p.filled);
  const isText = (p: Profile) => p.filled === 0 || p.digitsOnly < p.filled;

  take('date', found(named('date', isDates)));
  // A column of dates whose header says nothing is the booking date sooner than one whose header says value date.
  if (roles.date === undefined)
    take(
      'date',
      found(profiles.findIndex((p, i) => !used.has(i) && isDates(p) && !said[i]!.includes('valueDate'))),
    );
  if (roles.date === undefined) take('date', found(named('valueDate', isDates)));
  // Money: an amount column, or money out and money in; the running balance.
  const outI = named('out', (p) => p.filled === 0 || isMoney(p));
  const inI = named('in', (p) => p.filled === 0 || isMoney(p));
  if (outI !== -1 && inI !== -1 && outI !== inI) {
    take('out', outI);
    take('in', inI);
  }
  take('balance', found(named('balance', isMoney)));
  if (roles.out === undefined) take('amount', found(named('amount', isMoney)));
  if (roles.out === undefined && roles.amount === undefined) {
    // No header word: the columns of money by their values; with two, the one whose values the other's steps are.
    const money = profiles
      .map((_p, i) => i)
      .filter(
        (i) =>
          !used.has(i) &&
          said[i]!.length === 0 &&
          isMoney(profiles[i]!) &&
          profiles[i]!.decimals >= profiles[i]!.filled * 0.5,
      );
    if (money.length === 1) take('amount', money[0]);
    else if (money.length === 3 && roles.balance === undefined) {
      const split = outInBalance(records, money as [number, number, number]);
      if (split) {
        take('out', split.out);
        take('in', split.in);
        take('balance', split.balance);
      }
    } else if (money.length === 2 && roles.balance === undefined) {
      const [a, b] = money as [number, number];
      const pair = balancePair(records, a, b);
      if (pair) {
        take('amount', pair.amount);
        take('balance', pair.balance);
      } else {
        const split = outInByPayments(records, a, b);
        if (split) {
          take('out', split.out);
          take('in', split.in);
        }
      }
    }
  }
  if (roles.amount !== undefined || roles.out !== undefined)
    take('fee', found(named('fee', (p) => p.filled === 0 || isMoney(p))));
  take('status', found(named('status', (p) => p.filled > 0)));
  take('currency', found(named('currency', (p) => mostly(p.codes, p.filled))));
  take(
    'direction',
    found(
      said.findIndex(
        (r, i) =>
          !used.has(i) &&
          (r.includes('direction') || r.includes('type')) &&
          mostly(profiles[i]!.directions, profiles[i]!.filled) &&
          profiles[i]!.filled > 0,
      ),
    ),
  );
  if (roles.direction === undefined)
    take(
      'direction',
      found(
        profiles.findIndex(
          (p, i) => !used.has(i) && p.filled > 0 && mostly(p.directions, p.filled) && p.distinct <= 4,
        ),
      ),
    );
  if (roles.currency === undefined)
    take(
      'currency',
      found(
        profiles.findIndex(
          (p, i) =>
            !used.has(i) &&
            p.filled > 0 &&
            mostly(p.codes, p.filled) &&
            p.distinct <= 3 &&
            said[i]!.length === 0,
        ),
      ),
    );
  // The account is on every row: a card number filled on some rows only is the card each payment used.
  take(
    'account',
    found(named('account', (p) => p.filled >= rows * 0.9 && p.distinct <= 3 && p.withDigit > 0)),
  );
  if (roles.account === undefined)
    take(
      'account',
      found(
        profiles.findIndex(
          (p, i) =>
            !used.has(i) &&
            p.filled >= rows * 0.9 &&
            p.distinct === 1 &&
            (p.ibans === p.filled || p.masked === p.filled),
        ),
      ),
    );
  take('id', found(named('id', (p) => p.filled > 0)));
  take(
    'payee',
    found(named('payee', (p) => isParty(p) && p.filled >= rows * 0.5 && (p.distinct > 1 || p.filled <= 2))),
  );
  if (roles.payee === undefined) {
    const parties = said
      .map((_r, i) => i)
      .filter((i) => said[i]!.includes('payee') && !used.has(i) && isParty(profiles[i]!));
    const covered = records
      .slice(0, SAMPLE)
      .filter((r) => parties.some((i) => (r.values[i] ?? '').trim() !== '')).length;
    if (parties.length >= 2 && covered >= rows * 0.5) {
      roles.parties = parties;
      for (const i of parties) used.add(i);
    }
  }
  if (header.length === 0 && roles.payee === undefined) {
    // No header: the text right after a column of the other sides' IBANs is their name (ASN, and the layout
    // of most Dutch and Belgian exports: counter-account, then its holder).
    const counter = (p: Profile) =>
      p.filled > 0 && p.ibans * 2 >= p.filled && !(p.distinct === 1 && p.filled >= rows);
    const holder = profiles.findIndex(
      (p, i) =>
        i > 0 &&
        i - 1 !== roles.account &&
        !used.has(i) &&
        counter(profiles[i - 1]!) &&
        p.filled > 0 &&
        p.digitsOnly === 0 &&
        p.dates === 0 &&
        p.distinct > 1,
    );
    take('payee', found(holder));
  }
  take('description', found(named('description', isText)));
  take('category', found(named('category', isText)));
  take('reference', found(named('reference', (p) => p.filled > 0)));
  if (roles.payee === undefined && roles.description === undefined) {
    // The text column with the most different values.
    let best = -1;
    profiles.forEach((p, i) => {
      if (used.has(i) || p.filled === 0 || p.digitsOnly === p.filled || p.dates > 0 || isMoney(p)) return;
      // A column its header calls a type, a category or a status says what kind of row it is, never who.
      if (said[i]!.some((r) => r === 'type' || r === 'category' || r === 'status')) return;
      const b = profiles[best];
      // The most different values, then the longest: a merchant's words, not a type (`EFTPOS DEBIT`, `POS`).
      if (
        !b ||
        p.distinct > b.distinct ||
        (p.distinct === b.distinct && p.length / p.filled > b.length / b.filled)
      )
        best = i;
    });
    take('description', found(best));
  }
  let names: string[] | undefined;
  if (header.length === 0) {
    const label: Partial<Record<keyof ColumnRoles, string>> = {
      date: 'Date',
      amount: 'Amount',
      out: 'Money out',
      in: 'Money in',
      balance: 'Balance',
      description: 'Description',
      payee: 'Payee',
      currency: 'Currency',
      direction: 'Debit/Credit',
    };
    names = Array.from({ length: width }, (_, i) => `column ${i + 1}`);
    for (const [role, index] of Object.entries(roles) as [keyof ColumnRoles, number | number[]][])
      if (typeof index === 'number') names[index] = label[role] ?? `column ${index + 1}`;
  }
  return { roles, names };
}

/**
 * Of three money columns without a header, money out, money in and the running balance: out and in never both
 * filled on a row, and each balance step is in minus out (in either order of the rows).
 */
function outInBalance(
  records: CsvRecord[],
  money: [number, number, number],
): { out: number; in: number; balance: number } | undefined {
  const sample = records.slice(0, 60);
  for (const comma of [false, true]) {
    const n = (r: CsvRecord, i: number) => {
      const v = normaliseAmount(r.values[i] ?? '', comma, true);
      return v === undefined ? undefined : Math.round(Number(v) * 100);
    };
    for (const balance of money) {
      const [x, y] = money.filter((i) => i !== balance) as [number, number];
      if (sample.some((r) => (r.values[x] ?? '').trim() !== '' && (r.values[y] ?? '').trim() !== ''))
        continue;
      for (const [out, inn] of [
        [x, y],
        [y, x],
      ] as const) {
        const move = (r: CsvRecord) => Math.abs(n(r, inn) ?? 0) - Math.abs(n(r, out) ?? 0);
        let asc = 0;
        let desc = 0;
        for (let i = 1; i < sample.length; i++) {
          const b0 = n(sample[i - 1]!, balance);
          const b1 = n(sample[i]!, balance);
          if (b0 === undefined || b1 === undefined) continue;
          if (b1 - b0 === move(sample[i]!)) asc++;
          if (b0 - b1 === move(sample[i - 1]!)) desc++;
        }
        const pairs = sample.length - 1;
        if (pairs > 0 && (asc === pairs || desc === pairs)) return { out, in: inn, balance };
      }
    }
  }
  return undefined;
}

/**
 * Of two money columns without a header, never both filled on a row: money out and money in when the rows of one
 * are the payments to a card (`PAYMENT THANK YOU`) and the other's never are. Without such words nothing is told.
 */
function outInByPayments(
  records: CsvRecord[],
  a: number,
  b: number,
): { out: number; in: number } | undefined {
  const sample = records.slice(0, SAMPLE);
  const filled = (r: CsvRecord, i: number) => (r.values[i] ?? '').trim() !== '';
  if (sample.some((r) => filled(r, a) && filled(r, b))) return undefined;
  const paid = (i: number) => {
    const rows = sample.filter((r) => filled(r, i));
    return { rows: rows.length, payments: rows.filter((r) => CARD_PAYMENT.test(r.values.join(' '))).length };
  };
  const [pa, pb] = [paid(a), paid(b)];
  if (pa.payments === 0 && pb.payments > 0 && pb.payments * 2 >= pb.rows) return { out: a, in: b };
  if (pb.payments === 0 && pa.payments > 0 && pa.payments * 2 >= pa.rows) return { out: b, in: a };
  return undefined;
}

/** Of two money columns, which is the running balance of the other (its steps are the other's values), if any. */
function balancePair(
  records: CsvRecord[],
  a: number,
  b: number,
): { amount: number; balance: number } | undefined {
  for (const [amount, balance] of [
    [a, b],
    [b, a],
  ] as const) {
    for (const comma of [false, true]) {
      let fits = 0;
      let tried = 0;
      for (let i = 1; i < Math.min(records.length, 60); i++) {
        const x = normaliseAmount(records[i]!.values[amount] ?? '', comma, true);
        const b0 = normaliseAmount(records[i - 1]!.values[balance] ?? '', comma, true);
        const b1 = normaliseAmount(records[i]!.values[balance] ?? '', comma, true);
        const x0 = normaliseAmount(records[i - 1]!.values[amount] ?? '', comma, true);
        if (x === undefined || b0 === undefined || b1 === undefined || x0 === undefined) continue;
        tried++;
        const step = Math.round((Number(b1) - Number(b0)) * 100);
        const cents = Math.round(Number(x) * 100);
        const cents0 = Math.round(Number(x0) * 100);
        if (Math.abs(step) === Math.abs(cents) || Math.abs(step) === Math.abs(cents0)) fits++;
      }
      if (tried > 0 && fits === tried) return { amount, balance };
    }
  }
  return undefined;
}

export { headerKey };
