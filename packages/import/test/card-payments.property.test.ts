import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLEARING_ACCOUNT,
  ImportError,
  type ImportHooks,
  type LedgerRow,
  prepareImport,
} from '../src/index.js';

// Card exports synthesised in several layouts and languages (issue 37): charges written positive (the payments
// against them prove the card) or negative (the title says card), payments in the words of English, German, French,
// Dutch, Spanish, Italian, Polish and Nordic banks. Whatever the reader makes of a file, or refuses: a payment is
// never income (it is a transfer whose other leg balances it) and a charge is never positive spending.

const LANGUAGES = {
  en: {
    header: ['Date', 'Description', 'Amount'],
    title: 'Credit card statement',
    payments: ['PAYMENT - THANK YOU', 'AUTOPAY PAYMENT RECEIVED', 'ONLINE PAYMENT'],
  },
  de: {
    header: ['Buchungstag', 'Verwendungszweck', 'Betrag'],
    title: 'Kreditkarte Umsätze',
    payments: ['ZAHLUNG ERHALTEN', 'Einzahlung', 'Ausgleich Kreditkarte'],
  },
  fr: {
    header: ["Date d'opération", 'Libellé', 'Montant'],
    title: 'Carte de crédit relevé',
    payments: ['PAIEMENT REÇU MERCI', 'Règlement carte', 'VERSEMENT'],
  },
  nl: {
    header: ['Datum', 'Omschrijving', 'Bedrag'],
    title: 'Creditcard overzicht',
    payments: ['BETALING ONTVANGEN', 'Aflossing creditcard', 'Incasso betaling'],
  },
  es: {
    header: ['Fecha', 'Concepto', 'Importe'],
    title: 'Tarjeta de crédito movimientos',
    payments: ['PAGO RECIBIDO', 'Pago tarjeta', 'ABONO TARJETA'],
  },
  it: {
    header: ['Data', 'Descrizione', 'Importo'],
    title: 'Carta di credito estratto conto',
    payments: ['PAGAMENTO RICEVUTO', 'Versamento', 'Pagamento saldo'],
  },
  pl: {
    header: ['Data operacji', 'Opis operacji', 'Kwota'],
    title: 'Karta kredytowa zestawienie',
    payments: ['SPŁATA KARTY', 'Płatność otrzymana', 'Wpłata'],
  },
  nordic: {
    header: ['Bokföringsdag', 'Beskrivning', 'Belopp'],
    title: 'Kreditkort kontoutdrag',
    payments: ['INBETALNING', 'Innbetaling', 'Indbetaling tak', 'Suoritus'],
  },
} as const;
type Language = keyof typeof LANGUAGES;

const SHOPS = ['Corner Bakery', 'City Grocer', 'Rail Ticket', 'Book Nook', 'Pharmacy Plus', 'Gym Club'];

interface Card {
  language: Language;
  delimiter: ',' | ';';
  chargesPositive: boolean;
  titled: boolean;
  charges: { day: number; cents: number; shop: string }[];
  payments: { day: number; cents: number; words: number }[];
}

const iso = (day: number) => new Date(Date.UTC(2026, 0, 1 + day)).toISOString().slice(0, 10);
const money = (cents: number, comma: boolean) => {
  const text = (Math.abs(cents) / 100).toFixed(2);
  return `${cents < 0 ? '-' : ''}${comma ? text.replace('.', ',') : text}`;
};

/** The file, and what each of its lines holds (`charge` or `payment`) by its line number. */
function write(card: Card): { bytes: Uint8Array; lines: Map<number, 'charge' | 'payment'> } {
  const l = LANGUAGES[card.language];
  const d = card.delimiter;
  const comma = d === ';';
  const out: string[] = [];
  const lines = new Map<number, 'charge' | 'payment'>();
  // Charges written negative need the file to say it is a card's; charges written positive are proved by payments.
  if (card.titled || !card.chargesPositive) out.push(`${l.title}${d}****4321`, '');
  out.push(l.header.join(d));
  const rows = [
    ...card.charges.map((c) => ({ day: c.day, text: c.shop, cents: -c.cents, what: 'charge' as const })),
    ...card.payments.map((p) => ({
      day: p.day,
      text: l.payments[p.words % l.payments.length]!,
      cents: p.cents,
      what: 'payment' as const,
    })),
  ].sort((a, b) => a.day - b.day);
  for (const r of rows) {
    const written = card.chargesPositive ? -r.cents : r.cents;
    out.push([iso(r.day), r.text, money(written, comma)].map((c) => (c.includes(d) ? `"${c}"` : c)).join(d));
    lines.set(out.length, r.what);
  }
  return { bytes: new TextEncoder().encode(`${out.join('\n')}\n`), lines };
}

const hooks: ImportHooks = {
  chooseDateFormat: async () => {
    throw new ImportError('refused', 'dates read two ways', 1);
  },
  workspaceCurrency: async () => 'EUR',
  account: async () => 'card',
};

const card = fc.record<Card>({
  language: fc.constantFrom(...(Object.keys(LANGUAGES) as Language[])),
  delimiter: fc.constantFrom(',', ';'),
  chargesPositive: fc.boolean(),
  titled: fc.boolean(),
  charges: fc.array(
    fc.record({
      day: fc.integer({ min: 0, max: 360 }),
      cents: fc.integer({ min: 1, max: 90_000 }),
      shop: fc.constantFrom(...SHOPS),
    }),
    { minLength: 3, maxLength: 20 },
  ),
  payments: fc.array(
    fc.record({
      day: fc.integer({ min: 0, max: 360 }),
      cents: fc.integer({ min: 100, max: 500_000 }),
      words: fc.nat(),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

describe('generated card exports', () => {
  it('a payment is never income and a charge never positive spending, in any layout or language', async () => {
    let read = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(card, async (c) => {
        const { bytes, lines } = write(c);
        let rows: LedgerRow[];
        try {
          rows = (await prepareImport({ fileName: 'card.csv', bytes }, hooks)).rows as LedgerRow[];
        } catch (error) {
          if (!(error instanceof ImportError)) throw error;
          refused++;
          return;
        }
        read++;
        const own = rows.filter((r) => r.account_id === 'card');
        expect(own.length).toBe(lines.size);
        for (const row of own) {
          const what = lines.get(row.line);
          if (what === 'payment') {
            expect([row.kind, Number(row.amount) > 0], `line ${row.line}`).toEqual(['transfer', true]);
            const other = rows.filter((r) => r.event_id === row.event_id && r !== row);
            expect(other.map((o) => [o.account_id, o.kind, Number(o.amount) + Number(row.amount)])).toEqual([
              [CLEARING_ACCOUNT, 'transfer', 0],
            ]);
          } else expect([row.kind, Number(row.amount) < 0], `line ${row.line}`).toEqual(['spend', true]);
        }
        expect(rows.some((r) => r.kind === 'income')).toBe(false);
      }),
      { numRuns: 300, seed: 37 },
    );
    // The generated files carry the evidence a reader needs: refusing them is the exception.
    expect(refused).toBeLessThan(read / 10);
  });
});
