import type { CsvRecord } from './parse.js';
import { headerKey, PAYEE_WORDS, PAYER_WORDS } from './words.js';

/**
 * A file with a column of who pays and a column of who is paid (DKB's `Zahlungspflichtige*r` and
 * `Zahlungsempfänger*in`, S-Pankki's `Maksaja` and `Saajan nimi`) writes the account holder on one side of every
 * row: the holder is the name found in both columns on most rows (or, when the money goes one way only, the one
 * name of a side), and a row's counterparty is the other side.
 * Read from the names alone, never from the amount's sign (which a card file may write either way). Pure.
 */

export interface Parties {
  payer: number;
  payee: number;
  holder: string;
}

export function partiesOf(header: readonly string[], records: readonly CsvRecord[]): Parties | undefined {
  const keys = header.map(headerKey);
  const payer = keys.findIndex((k) => PAYER_WORDS.has(k));
  const payee = keys.findIndex((k) => PAYEE_WORDS.has(k));
  if (payer === -1 || payee === -1 || payer === payee) return undefined;
  const sample = records.slice(0, 500);
  // Names, not account numbers (Nordea's `Avsändare` and `Mottagare` hold accounts).
  const named = (i: number) => {
    const cells = sample.map((r) => (r.values[i] ?? '').trim()).filter((c) => c !== '');
    return cells.filter((c) => /\p{L}/u.test(c)).length * 2 >= cells.length && cells.length > 0;
  };
  if (!named(payer) || !named(payee)) return undefined;
  const sides = new Map<string, { paying: number; paid: number }>();
  for (const r of sample) {
    const a = (r.values[payer] ?? '').trim();
    const b = (r.values[payee] ?? '').trim();
    if (a !== '') {
      const s = sides.get(a) ?? { paying: 0, paid: 0 };
      s.paying++;
      sides.set(a, s);
    }
    if (b !== '' && b !== a) {
      const s = sides.get(b) ?? { paying: 0, paid: 0 };
      s.paid++;
      sides.set(b, s);
    }
  }
  let holder: string | undefined;
  let most = 0;
  for (const [name, s] of sides)
    if (s.paying > 0 && s.paid > 0 && s.paying + s.paid > most) {
      holder = name;
      most = s.paying + s.paid;
    }
  if (holder === undefined) holder = oneSided(sample, payer, payee);
  else if (most * 2 < sample.length) return undefined;
  return holder === undefined ? undefined : { payer, payee, holder };
}

/**
 * The holder of a file whose money goes one way only (a savings account paid into, a month of spending): the one
 * name of a side filled on every row, beside a side of several names. One counterparty throughout says nothing.
 */
function oneSided(sample: readonly CsvRecord[], payer: number, payee: number): string | undefined {
  const names = (i: number) => new Set(sample.map((r) => (r.values[i] ?? '').trim()));
  const paying = names(payer);
  const paid = names(payee);
  const only = (side: Set<string>, other: Set<string>) => {
    const [name] = side;
    const others = [...other].filter((n) => n !== '');
    return side.size === 1 && name !== '' && others.length > 1 && !other.has(name!) ? name : undefined;
  };
  return only(paying, paid) ?? only(paid, paying);
}

/** A row's counterparty: the side that is not the holder (undefined when neither side is the holder). */
export function otherParty(values: readonly string[], parties: Parties): string | undefined {
  const a = (values[parties.payer] ?? '').trim();
  const b = (values[parties.payee] ?? '').trim();
  if (a === parties.holder && b !== '') return b;
  if (b === parties.holder && a !== '') return a;
  return undefined;
}
