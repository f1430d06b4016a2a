/**
 * What every statement format (OFX/QFX, QIF, CAMT.05x, MT940/942) is read into: one or more accounts, each with
 * its entries and, where the file gives them, its opening and closing balances.
 */

export type StatementFormat = 'ofx' | 'qif' | 'camt' | 'mt940';

export interface StatementEntry {
  /** 1-based line of the file where the entry starts. */
  line: number;
  /** ISO date (`2026-03-01`). */
  date: string;
  /** Signed decimal with a dot: negative leaves the account. */
  amount: string;
  currency: string | undefined;
  payee: string | undefined;
  memo: string | undefined;
  /** The statement's own identifier of the entry (FITID, entry reference): the duplicate key. */
  id: string | undefined;
  /** The kind of movement as the statement codes it (OFX `TRNTYPE`: `PAYMENT`, `XFER`, `DEBIT` ...), if it does. */
  type?: string;
  /** Only booked entries are imported; the others are skipped and counted with why. */
  booked: boolean;
  reason?: string;
}

export interface StatementAccount {
  /** The account as the file names it (IBAN, account number, OFX ACCTID, a QIF account name). */
  id: string | undefined;
  /** A card account (OFX CCSTMTRS, QIF `!Type:CCard`). */
  card: boolean;
  currency: string | undefined;
  opening: string | undefined;
  closing: string | undefined;
  entries: StatementEntry[];
}

export interface Statement {
  format: StatementFormat;
  /** The layout in words, as said on stderr (`OFX 2 (XML)`, `CAMT.053`, `MT940`). */
  title: string;
  accounts: StatementAccount[];
}

/** `20260301`, `260301` (YYMMDD), `2026-03-01...` as ISO; undefined when not a calendar date. */
export function isoFromDigits(raw: string): string | undefined {
  const s = raw.trim();
  let m = /^(\d{4})-?(\d{2})-?(\d{2})/.exec(s);
  let y: number;
  if (m) y = Number(m[1]);
  else {
    m = /^(\d{2})(\d{2})(\d{2})$/.exec(s);
    if (!m) return undefined;
    y = 2000 + Number(m[1]);
  }
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  return `${String(y).padStart(4, '0')}-${m[2]}-${m[3]}`;
}

/** The 1-based line of a character offset of `text` (line starts indexed once, then a binary search). */
export function lineFinder(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
