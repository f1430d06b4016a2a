import type { CsvRecord } from './parse.js';

/**
 * The account a CSV export names: an IBAN (checked by its ISO 13616 checksum) or an account number in the lines
 * above its table (`Account: 12345678`, `Konto;DE89 3704 ...`, `"Rekeningnummer","NL91..."`), or an account
 * column that holds one value. Card numbers are kept as their last four digits.
 */

const IBAN = /\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)\b/g;
const NUMBER_LINE =
  /\b(?:account|a\/c|konto(?:nummer)?|kontonr|rekening(?:nummer)?|compte|cuenta|conto|conta|rachunek|numer rachunku|tilinumero|card|carte|karte(?:nnummer)?|tarjeta|hesap(?:\s+no)?)\b[^\d\n*•…]{0,40}?((?:\d[\d -]{4,30}\d(?:[A-Z]\d+)*)|(?:(?:[*•]{2,}|[xX]{2,}|\.{3}|…)[\d -]*\d{4}))/i;
const BALANCE_WORDS = /\b(?:balance|saldo|solde|kontostand|stand)\b/i;
const NUMBER_WORD = /\b(?:number|no|nr|nummer|num[eé]ro|numer|n[uú]mero)\b|#/i;
/** A preamble cell that is nothing but an account number (`="000123456789"`). */
const NUMBER_CELL = /^[="']*(\d{8,20})["']*$/;

export function validIban(candidate: string): boolean {
  const s = candidate.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? ch.charCodeAt(0) - 55 : Number(ch);
    rest = Number(`${rest}${v}`) % 97;
  }
  return rest === 1;
}

function cleaned(raw: string): string {
  const s = raw.replace(/^["'=]+|["']+$/g, '').trim();
  const masked = /(?:[*•]{2,}|[xX]{2,}|\.{3}|…)[\d -]*?(\d{4})$/.exec(s);
  if (masked) return `*${masked[1]}`;
  return s.replace(/\s+/g, ' ');
}

/** The IBAN named in some lines of text (a preamble), if exactly one. */
export function ibanInLines(lines: readonly string[]): string | undefined {
  const found = new Set<string>();
  for (const line of lines)
    for (const m of line.matchAll(IBAN)) if (validIban(m[1]!)) found.add(m[1]!.replace(/\s/g, ''));
  return found.size === 1 ? [...found][0] : undefined;
}

/** The account number named in some lines of text (`Account: 12345678`, `="000123456789"`), if exactly one. */
export function numberInLines(lines: readonly string[]): string | undefined {
  let found = new Set<string>();
  const numbered = new Set<string>();
  for (const line of lines) {
    const m = NUMBER_LINE.exec(line);
    // `Account Balance as of March 17 2026` names a balance and a date, not the account.
    if (!m || BALANCE_WORDS.test(m[0])) continue;
    const number = cleaned(m[1]!).replace(/\s/g, '');
    found.add(number);
    if (NUMBER_WORD.test(line)) numbered.add(number);
  }
  // Two candidates: the one its line calls a number (`Account Number:`) is the account.
  if (found.size > 1 && numbered.size === 1) found = numbered;
  if (found.size === 0)
    for (const line of lines)
      for (const cell of line.split(/[;,\t]/)) {
        const m = NUMBER_CELL.exec(cell.trim());
        if (m) found.add(m[1]!);
      }
  return found.size === 1 ? [...found][0] : undefined;
}

/** The account a preamble names: its IBAN, else its account number. */
export const accountInLines = (lines: readonly string[]): string | undefined =>
  ibanInLines(lines) ?? numberInLines(lines);

/** The one value of an account column (a file of one account), if it has one. */
export function accountInColumn(records: CsvRecord[], index: number): string | undefined {
  const values = new Set<string>();
  for (const r of records) {
    const v = cleaned(r.values[index] ?? '');
    if (v !== '') values.add(v);
    if (values.size > 1) return undefined;
  }
  const [only] = values;
  if (only === undefined || !/\d/.test(only)) return undefined;
  if (only.startsWith('*')) return only;
  const token = /[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?|\d[\d/ .-]*\d/.exec(only);
  return (token?.[0] ?? only).replace(/\s/g, '');
}
